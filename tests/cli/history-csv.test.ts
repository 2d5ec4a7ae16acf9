/**
 * `wraith history --csv` (cli/src/commands/history.ts): RFC 4180 fields, and a field a spreadsheet
 * would run as a formula (a token symbol is the payer's choice) opened as text behind an apostrophe.
 */
import { describe, expect, it } from 'vitest';
import { csvField } from '../../cli/src/commands/history.ts';

describe('the CLI history as CSV', () => {
  it('quotes commas, quotes and line breaks, and disarms a leading =, +, -, @, tab or CR', () => {
    expect(csvField('TST')).toBe('TST');
    expect(csvField(null)).toBe('');
    expect(csvField(18)).toBe('18');
    expect(csvField('a,"b"\nc')).toBe('"a,""b""\nc"');
    expect(csvField('=HYPERLINK("https://evil.example","x")')).toBe(`"'=HYPERLINK(""https://evil.example"",""x"")"`);
    for (const formula of ['+1', '-1', '@SUM(A1)', '\t=1', '\r=1']) expect(csvField(formula).replace(/^"/, '')).toMatch(/^'/);
  });
});
