/**
 * Masking rules shared by the content script (which applies them before anything leaves the
 * page) and the agent (which re-checks what arrives). DESIGN §4: a typed value never leaves the
 * page unless the session consented to `none`; secrets are masked whatever the mode.
 */

export type LengthClass = "empty" | "short" | "medium" | "long";

/** A coarse size that says "something was typed" without saying what. */
export function lengthClass(length: number): LengthClass {
  if (length === 0) return "empty";
  if (length <= 8) return "short";
  if (length <= 40) return "medium";
  return "long";
}

/** Input types whose value is always a secret or card data. */
const SECRET_INPUT_TYPES = new Set(["password"]);

/** autocomplete tokens (HTML spec) that name secrets, one-time codes or payment data. */
const SECRET_AUTOCOMPLETE =
  /\b(current-password|new-password|one-time-code|cc-number|cc-csc|cc-exp(-month|-year)?|cc-name|cc-type|cc-given-name|cc-family-name|transaction-amount)\b/i;

/** Words in a field's name, id or label that hint at a secret (several languages' common terms). */
const SECRET_HINTS =
  /(pass(word|wd|code|phrase)?|pwd|secret|token|api[-_ ]?key|otp|one[-_ ]?time|2fa|mfa|totp|verification[-_ ]?code|security[-_ ]?code|pin\b|\bpin|cvv|cvc|csc|card[-_ ]?(number|no|num)|credit[-_ ]?card|iban|ssn|social[-_ ]?security|tax[-_ ]?id|passwort|mot[-_ ]?de[-_ ]?passe|contrase(ñ|n)a|private[-_ ]?key)/i;

export interface FieldHints {
  inputType?: string | undefined;
  autocomplete?: string | undefined;
  name?: string | undefined;
  id?: string | undefined;
  label?: string | undefined;
}

/**
 * Whether a field must be masked in every mode, `none` included: passwords, one-time codes,
 * card numbers, and anything whose type, autocomplete, name, id or label hints at a secret.
 */
export function isAlwaysSecretField(hints: FieldHints): boolean {
  if (hints.inputType !== undefined && SECRET_INPUT_TYPES.has(hints.inputType.toLowerCase())) return true;
  if (hints.autocomplete !== undefined && SECRET_AUTOCOMPLETE.test(hints.autocomplete)) return true;
  return [hints.name, hints.id, hints.label].some((text) => text !== undefined && SECRET_HINTS.test(text));
}

/** A value that looks like a card number (13–19 digits, spaces or dashes allowed) is a secret even in an ordinary field. */
export function looksLikeCardNumber(value: string): boolean {
  const digits = value.replace(/[\s-]/g, "");
  return /^\d{13,19}$/.test(digits);
}

// Addresses have a rule of their own: url-rule.ts.
