/**
 * The end of an exhaustive `switch` over a tagged union (STYLE habit 5): it does not compile while a
 * case is missing, and throws if a value the types rule out arrives anyway (a newer peer's message).
 */
export function assertNever(value: never): never {
  let shown: string;
  try {
    shown = JSON.stringify(value) ?? String(value);
  } catch {
    shown = String(value);
  }
  throw new Error(`Unhandled value: ${shown}`);
}
