/**
 * The Scan page's spare worker (app/(web)/_lib/scan-worker.ts): started before the user asks for
 * a scan, handed over once, replaced when it failed to load, and never started after the page
 * has gone. Fake workers stand in for browser ones: what is checked is which worker each scan
 * gets and that none is left running.
 */
import { describe, expect, it } from 'vitest';
import { spareRegistryScanWorker } from '../../app/(web)/_lib/scan-worker.ts';

class FakeWorker extends EventTarget {
  terminated = false;
  terminate(): void {
    this.terminated = true;
  }
}

function spawner() {
  const spawned: FakeWorker[] = [];
  const spawn = () => {
    const worker = new FakeWorker();
    spawned.push(worker);
    return worker as unknown as Worker;
  };
  return { spawned, spawn };
}

describe('the spare scan worker', () => {
  it('is started once ahead of the scan and handed to it; the next scan gets a new one', () => {
    const { spawned, spawn } = spawner();
    const spare = spareRegistryScanWorker(spawn);
    spare.prepare();
    spare.prepare();
    expect(spawned).toHaveLength(1);
    const first = spare.take();
    expect(first).toBe(spawned[0]);
    const second = spare.take(); // nothing prepared: a fresh worker, never the one in use
    expect(second).toBe(spawned[1]);
    expect(second).not.toBe(first);
    spare.prepare();
    expect(spare.take()).toBe(spawned[2]);
    expect(spawned.every((w) => !w.terminated)).toBe(true);
  });

  it('is replaced when it failed to load, so the scan meets the failure itself', () => {
    const { spawned, spawn } = spawner();
    const spare = spareRegistryScanWorker(spawn);
    spare.prepare();
    spawned[0]!.dispatchEvent(new Event('error'));
    const worker = spare.take();
    expect(spawned[0]!.terminated).toBe(true);
    expect(worker).toBe(spawned[1]);
  });

  it('is ended with the page, and none is started after that', () => {
    const { spawned, spawn } = spawner();
    const spare = spareRegistryScanWorker(spawn);
    spare.prepare();
    spare.dispose();
    expect(spawned[0]!.terminated).toBe(true);
    spare.prepare(); // a scan that ends after the page went
    expect(spawned).toHaveLength(1);
  });
});
