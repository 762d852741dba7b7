/** Edit distance (insertions, deletions, substitutions), for "did you mean" hints. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The candidate closest to `word` when it is close enough to be a typo (a third of its length, at least 2). */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(2, Math.floor(word.length / 3));
  let best: { candidate: string; score: number } | undefined;
  for (const candidate of candidates) {
    const score = distance(word.toLowerCase(), candidate.toLowerCase());
    if (score <= limit && (best === undefined || score < best.score)) best = { candidate, score };
  }
  return best?.candidate;
}

/** `did you mean "x"?`, or undefined when nothing is close. */
export const didYouMean = (word: string, candidates: readonly string[]): string | undefined => {
  const match = closest(word, candidates);
  return match === undefined ? undefined : `did you mean "${match}"?`;
};
