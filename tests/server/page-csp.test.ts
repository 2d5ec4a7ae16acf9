/** The pages' policy lets them reach exactly the configured gasless bundlers (issue 31), nothing wider. */
import { describe, expect, it } from 'vitest';
import { connectOrigins, pageContentSecurityPolicy } from '../../lib/http/page-csp.ts';

const connectSrc = (policy: string) => policy.split('; ').find((d) => d.startsWith('connect-src '));

describe('the pages\' Content-Security-Policy', () => {
  it('connects only to this origin when no chain offers gasless withdrawals', () => {
    expect(connectSrc(pageContentSecurityPolicy('n'))).toBe("connect-src 'self'");
  });

  it('adds the origin of each configured bundler, once, and never a wildcard or a path', () => {
    const policy = pageContentSecurityPolicy('n', false, ['https://bundler.example/rpc?x=1', 'https://bundler.example/other', 'http://127.0.0.1:4337']);
    expect(connectSrc(policy)).toBe("connect-src 'self' https://bundler.example http://127.0.0.1:4337");
    expect(policy).not.toContain('*');
  });

  it('drops what is not an http(s) URL instead of allowing it', () => {
    expect(connectOrigins(['*', 'javascript:alert(1)', 'not a url', "https://ok.example 'unsafe-eval'"])).toEqual([]);
  });
});
