/**
 * Longer than any word worth suggesting for: the edit distance costs its length times each
 * candidate's, so a word of thousands of letters would cost the event loop for nothing.
 */
export const MAX_SUGGESTABLE = 40;

/** The known word nearest to a misspelled one, when it is near enough to be what was meant. */
export function nearest<T extends string>(word: string, candidates: readonly T[]): T | undefined {
  if (word.length > MAX_SUGGESTABLE) return undefined;
  const w = word.toLowerCase();
  let best: T | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const score = c.startsWith(w) || c.replace(/-/g, '') === w.replace(/[-_ ]/g, '') ? 0 : editDistance(w, c);
    if (score < bestScore) {
      best = c;
      bestScore = score;
    }
  }
  const limit = Math.max(2, Math.floor(w.length / 3));
  return bestScore <= limit ? best : undefined;
}

/** Damerau-Levenshtein (optimal string alignment): a swapped pair of letters costs one edit. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      const prev = d[i - 1] as number[];
      row[j] = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}
