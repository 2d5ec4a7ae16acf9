/** Number, time and hex formatting for display. */

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function formatCount(n: number): string {
  return integer.format(n);
}

/** Announcements per second, e.g. "2,345/s". */
export function formatRate(perSecond: number): string {
  return `${integer.format(perSecond)}/s`;
}

/** A remaining time, e.g. "about 2 min 5 s". */
export function formatEta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return 'estimating…';
  if (seconds < 1) return 'less than a second';
  const s = Math.round(seconds);
  if (s < 60) return `about ${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `about ${m} min ${s % 60} s`;
  return `about ${Math.floor(m / 60)} h ${m % 60} min`;
}

/** Unix seconds as a local date and time. */
export function formatTime(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toLocaleString();
}

/** `0x1234…abcd`: a recognisable short form of a long hex string. */
export function shortHex(hex: string, keep = 6): string {
  const body = hex.replace(/^0x/i, '');
  return body.length <= keep * 2 + 1 ? `0x${body}` : `0x${body.slice(0, keep)}…${body.slice(-keep)}`;
}
