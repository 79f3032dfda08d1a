import { isAlwaysSecretField, looksLikeCardNumber, maskUrl } from "./masking-rules";

export const MASKED_ARGUMENT = "«masked»";

/** Flags whose next argument is a secret (`--password hunter2`, `-p hunter2`). */
const SECRET_FLAG = /^-{1,2}(p|pw|pass|password|passwd|token|api[-_]?key|secret|key|auth|otp|pin|private[-_]?key|client[-_]?secret)$/i;

/** A long run of base64/hex-ish characters: how tokens and keys look when pasted into a command. */
function looksLikeToken(value: string): boolean {
  if (value.length < 20 || /\s/.test(value)) return false;
  if (!/^[A-Za-z0-9+/=_.:-]+$/.test(value)) return false;
  if (looksLikePath(value)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/].filter((pattern) => pattern.test(value)).length;
  return classes >= 2 && !/^[a-z]+([._-][a-z]+)*$/i.test(value);
}

/**
 * A file path (`/home/ann/reports/q3-2024/summary_v2.pdf`, `migrations/007_orders.sql`): slash-separated names
 * a person chose. Digits in a name do not make it a token; a name that looks random (mixed case
 * and digits without a separator, as base64 does) still does.
 */
function looksLikePath(value: string): boolean {
  if (!/^(~|\.{1,2})?\/?([A-Za-z0-9_.+-]+\/)+[A-Za-z0-9_.+-]*$/.test(value)) return false;
  return value.split("/").every((name) => !looksRandom(name));
}

function looksRandom(name: string): boolean {
  if (name.length < 8 || /[._+-]/.test(name)) return false;
  return /[a-z]/.test(name) && /[A-Z]/.test(name) && /[0-9]/.test(name);
}

function maskOne(argument: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(argument)) return maskUrl(argument) || MASKED_ARGUMENT;
  const pair = /^(-{0,2}[A-Za-z0-9_.-]+)=(.*)$/s.exec(argument);
  if (pair !== null && pair[1] !== undefined && pair[2] !== undefined) {
    const key = pair[1].replace(/^-+/, "");
    if (isAlwaysSecretField({ name: key }) || looksLikeToken(pair[2]) || looksLikeCardNumber(pair[2])) return `${pair[1]}=${MASKED_ARGUMENT}`;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(pair[2])) return `${pair[1]}=${maskUrl(pair[2]) || MASKED_ARGUMENT}`;
    return argument;
  }
  if (looksLikeToken(argument) || looksLikeCardNumber(argument)) return MASKED_ARGUMENT;
  return argument;
}

/**
 * Masks the arguments of a command before it is reported (terminal_command, process_launch):
 * values after secret-named flags, secret-named `key=value` pairs, token-looking strings, card
 * numbers, and query values and credentials in URLs. The program name and ordinary arguments stay,
 * so the step remains readable ("git push origin main").
 */
export function maskCommandArguments(args: readonly string[]): string[] {
  const masked: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const argument = args[i] as string;
    masked.push(maskOne(argument));
    if (SECRET_FLAG.test(argument) && i + 1 < args.length) {
      masked.push(MASKED_ARGUMENT);
      i += 1;
    }
  }
  return masked;
}
