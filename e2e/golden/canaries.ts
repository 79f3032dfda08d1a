/**
 * What the golden demonstrations type, one distinct value per field (the sign-up's "Confirm email"
 * repeats its email on purpose: one hashed value typed twice). Fixed, so the golden test can prove
 * that none of it reached the recorded fixtures; the card number is a public test number.
 */
export const GOLDEN_CANARIES = {
  signup: {
    full_name: "Canary Ada Q7XK",
    email: "canary.q7xk@example.test",
    password: "CanaryPw-q7xk-91!",
  },
  search: {
    query: "canary refund zq4m",
  },
  checkout: {
    full_name: "Canary Grace M2PL",
    street: "12 Canary Lane M2PL",
    city: "Canaryville M2PL",
    card_number: "4000 0566 5566 5556",
  },
} as const;

/** Every canary, plus forms a leak could take (a card number without its spaces). */
export function canaryNeedles(): string[] {
  const values = Object.values(GOLDEN_CANARIES).flatMap((fields) => Object.values(fields) as string[]);
  const digitsOnly = values.filter((value) => /^[\d ]+$/.test(value)).map((value) => value.replace(/ /g, ""));
  return [...values, ...digitsOnly];
}
