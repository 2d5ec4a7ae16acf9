/**
 * "Did you mean": the nearest known word to a mistyped flag or command, by edit distance
 * (Levenshtein, with a transposition counted as one edit, as in `--amuont`), offered only when
 * it is close enough to be the likely intent.
 * @module
 */

/** Edits (insert, delete, substitute, swap two neighbours) turning `a` into `b`. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The candidate nearest to `word` (a third of its length or 2 edits at most, whichever is more), or null. */
export function closest(word: string, candidates: readonly string[]): string | null {
  const limit = Math.max(2, Math.floor(word.length / 3));
  let best: { candidate: string; distance: number } | null = null;
  for (const candidate of candidates) {
    const distance = candidate.startsWith(word) && word.length >= 3 ? 1 : editDistance(word, candidate);
    if (distance <= limit && (best === null || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate ?? null;
}
