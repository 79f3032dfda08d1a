/**
 * Requests as people type them (issue #15, ninth round): each evaluation request with one slip of
 * the keyboard in one of its words of five letters or more — two letters swapped, one left out, or
 * one doubled — chosen by a fixed sequence, so every run types the same slips.
 */
export function withOneTypo(requests: readonly string[]): string[] {
  let state = 7;
  const next = (): number => {
    state = (state * 16807) % 2147483647;
    return state / 2147483647;
  };
  return requests.map((request) => {
    const words = request.toLowerCase().split(" ");
    const long = words.map((word, at) => ({ word, at })).filter(({ word }) => /^[a-z]{5,}$/.test(word));
    if (long.length === 0) return request;
    const { word, at } = long[Math.floor(next() * long.length)] as { word: string; at: number };
    const slip = 1 + Math.floor(next() * (word.length - 2));
    const kind = next();
    words[at] =
      kind < 1 / 3
        ? word.slice(0, slip) + (word[slip + 1] as string) + (word[slip] as string) + word.slice(slip + 2)
        : kind < 2 / 3
          ? word.slice(0, slip) + word.slice(slip + 1)
          : word.slice(0, slip) + (word[slip] as string) + word.slice(slip);
    return words.join(" ");
  });
}
