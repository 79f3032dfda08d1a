import { isAlwaysSecretField, looksLikeCardNumber } from "./masking-rules";
import { maskUrl } from "./url-rule";

export const MASKED_ARGUMENT = "«masked»";

/** Flags whose next argument is a secret (`--password hunter2`, `-p hunter2`). */
const SECRET_FLAG =
  /^-{1,2}(p|pw|pass|password|passwd|passin|passout|passphrase|token|api[-_]?key|secret|key|auth|otp|pin|private[-_]?key|client[-_]?secret)$/i;

/** Programs with a secret flag of their own (`redis-cli -a <password>`). */
const PROGRAM_SECRET_FLAG: Record<string, RegExp> = { "redis-cli": /^-a$/, "keydb-cli": /^-a$/ };

/**
 * Programs that run another one (`sudo mysql -p…`, `docker exec db mysql -p…`): after them, a
 * word that names a known program is judged as that program.
 */
const RUNS_ANOTHER = new Set([
  "sudo",
  "doas",
  "env",
  "nice",
  "nohup",
  "time",
  "timeout",
  "xargs",
  "exec",
  "command",
  "watch",
  "ssh",
  "docker",
  "podman",
  "kubectl",
  "npx",
  "strace",
  "chronic",
]);

/** A long run of base64/hex-ish characters: how tokens and keys look when pasted into a command. */
function looksLikeToken(value: string): boolean {
  if (value.length < 20 || /\s/.test(value)) return false;
  if (!/^[A-Za-z0-9+/=_.:-]+$/.test(value)) return false;
  if (looksLikePath(value) || looksLikeFileName(value)) return false;
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

/**
 * A file name with an extension (`release-2026-11.tar.gz`, `IMG20240101_0930.jpg`): words a person
 * chose between separators. A long run of letters and digits (a hex or base64 key) still is not one.
 */
function looksLikeFileName(value: string): boolean {
  if (!/^[A-Za-z0-9_+-][A-Za-z0-9_.+-]*\.[a-z0-9]{1,5}$/.test(value)) return false;
  return value.split(/[._+-]/).every((part) => !looksRandom(part) && !(part.length >= 16 && /[0-9]/.test(part) && /[a-z]/i.test(part)));
}

function looksRandom(name: string): boolean {
  if (name.length < 8 || /[._+-]/.test(name)) return false;
  return /[a-z]/.test(name) && /[A-Z]/.test(name) && /[0-9]/.test(name);
}

function maskOne(argument: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(argument)) return maskUrl(argument, "unknown") || MASKED_ARGUMENT;
  const pair = /^(-{0,2}[A-Za-z0-9_.-]+)=(.*)$/s.exec(argument);
  if (pair !== null && pair[1] !== undefined && pair[2] !== undefined) {
    const key = pair[1].replace(/^-+/, "");
    if (isAlwaysSecretField({ name: key }) || looksLikeToken(pair[2]) || looksLikeCardNumber(pair[2])) return `${pair[1]}=${MASKED_ARGUMENT}`;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(pair[2])) return `${pair[1]}=${maskUrl(pair[2], "unknown") || MASKED_ARGUMENT}`;
    return argument;
  }
  if (looksLikeToken(argument) || looksLikeCardNumber(argument)) return MASKED_ARGUMENT;
  return argument;
}

/** Words that end one command of a line and start the next (`a | b`, `a && b`, `a; b`). */
const CONTROL_OPERATOR = /^(\||\|\||&&|;|&|\|&|\(|\)|\{|\})$/;

/** Flags whose value is `user:password` (curl, wget, httpie, git credential helpers…): the part after the colon is the secret. */
const CREDENTIAL_FLAG = /^(-u|-U|--user|--proxy-user|--creds|--auth|--basic-auth)$/;

/** Header flags whose value is `Name: value`; a header that carries credentials has its value masked. */
const HEADER_FLAG = /^(-H|--header|--proxy-header)$/;
const SECRET_HEADER = /^\s*(authorization|proxy-authorization|cookie|set-cookie|[a-z0-9-]*(token|api-?key|secret|session|auth)[a-z0-9-]*)\s*:/i;

/** Programs that take a password glued to `-p` (`mysql -phunter2`, `7z x -phunter2`). */
const GLUED_PASSWORD_PROGRAMS = new Set([
  "mysql",
  "mysqldump",
  "mysqladmin",
  "mysqlimport",
  "mysqlshow",
  "mysqlcheck",
  "mysqlpump",
  "mariadb",
  "mariadb-dump",
  "mariadb-admin",
  "7z",
  "7za",
  "7zr",
  "sshpass",
]);

/**
 * Programs whose `-p`/`-P` is not a password (`mkdir -p build/out`, `ssh -p 2222`, `git add -p`):
 * the next word stays readable. Any other program's `-p` is taken as a password flag.
 */
const P_IS_NOT_A_PASSWORD = new Set([
  "mkdir",
  "cp",
  "mv",
  "rsync",
  "ssh",
  "scp",
  "sftp",
  "git",
  "tar",
  "install",
  "ps",
  "lsof",
  "pgrep",
  "pkill",
  "patch",
  "diff",
  "ls",
  "sort",
  "xargs",
  "nc",
  "netcat",
  "top",
  "htop",
  "python",
  "python3",
  "pytest",
  "grep",
]);

function programName(word: string): string {
  return (word.split("/").at(-1) ?? word).toLowerCase();
}

const isAssignment = (word: string) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(word);

/** `user:password` → `user:«masked»` (a token-looking user too); without a colon, the value as any argument. */
function maskCredential(value: string): string {
  const colon = value.indexOf(":");
  return colon < 0 ? maskOne(value) : `${maskOne(value.slice(0, colon))}:${MASKED_ARGUMENT}`;
}

function maskHeader(value: string): string {
  const match = SECRET_HEADER.exec(value);
  return match === null ? value : `${match[0].trim()} ${MASKED_ARGUMENT}`;
}

/**
 * Masks the arguments of a command before it is reported (terminal_command, process_launch):
 * values after secret-named flags, secret-named `key=value` pairs (`PGPASSWORD=… psql`),
 * token-looking strings, card numbers, query values and credentials in URLs, the password of
 * `user:password` after `-u`/`--user`, credential headers (`-H "Authorization: …"`), and a
 * password glued to `-p` for programs that take one so (`mysql -p…`). The program name and
 * ordinary arguments stay, so the step remains readable ("git push origin main").
 *
 * `program` is the command's program; the arguments may hold more commands (`cd x && mysql -p…`,
 * `a | b`), each judged by its own program.
 */
export function maskCommandArguments(args: readonly string[], program?: string): string[] {
  const masked: string[] = [];
  let current = program === undefined ? undefined : programName(program);
  let expectProgram = false;
  for (let i = 0; i < args.length; i += 1) {
    const argument = args[i] as string;
    const next = args[i + 1];
    if (CONTROL_OPERATOR.test(argument) || /;$/.test(argument)) {
      masked.push(CONTROL_OPERATOR.test(argument) ? argument : maskOne(argument));
      expectProgram = true;
      continue;
    }
    if (expectProgram && !isAssignment(argument)) {
      current = programName(argument);
      expectProgram = false;
      masked.push(maskOne(argument));
      continue;
    }
    // `sudo -u root mysql -p…`, `kubectl exec db -- mysql -p…`: the program that takes the flags.
    const named = programName(argument);
    if (
      current !== undefined &&
      !argument.startsWith("-") &&
      (GLUED_PASSWORD_PROGRAMS.has(named) || named in PROGRAM_SECRET_FLAG || (RUNS_ANOTHER.has(current) && P_IS_NOT_A_PASSWORD.has(named)))
    ) {
      current = named;
      masked.push(argument);
      continue;
    }
    if (current !== undefined && GLUED_PASSWORD_PROGRAMS.has(current) && /^-p./.test(argument) && !argument.startsWith("--")) {
      masked.push(`-p${MASKED_ARGUMENT}`);
      continue;
    }
    const glued = /^(-u)(.+:.*)$/.exec(argument);
    if (glued !== null) {
      masked.push(`${glued[1]}${maskCredential(glued[2] as string)}`);
      continue;
    }
    const credentialPair = /^(--(user|proxy-user|creds|auth|basic-auth))=(.*)$/.exec(argument);
    if (credentialPair !== null) {
      masked.push(`${credentialPair[1]}=${maskCredential(credentialPair[3] as string)}`);
      continue;
    }
    masked.push(maskOne(argument));
    if (next === undefined) continue;
    if (CREDENTIAL_FLAG.test(argument)) {
      masked.push(maskCredential(next));
      i += 1;
    } else if (HEADER_FLAG.test(argument)) {
      masked.push(maskHeader(maskOne(next)));
      i += 1;
    } else if (
      (SECRET_FLAG.test(argument) && !(/^-p$/i.test(argument) && current !== undefined && P_IS_NOT_A_PASSWORD.has(current))) ||
      (current !== undefined && PROGRAM_SECRET_FLAG[current]?.test(argument) === true)
    ) {
      masked.push(MASKED_ARGUMENT);
      i += 1;
    }
  }
  return masked;
}

/** A whole command line's words, masked: leading `NAME=value` assignments, then the program and its arguments. */
export interface MaskedCommandLine {
  /** The program's name as typed (a path keeps only its last part); undefined when the line only assigns variables. */
  program: string | undefined;
  args: string[];
  /** `PGPASSWORD=… psql`: the assignments before the program, secret-named ones masked. */
  assignments: string[];
}

export function maskCommandLine(words: readonly string[]): MaskedCommandLine {
  const at = words.findIndex((word) => !isAssignment(word));
  const assignments = maskCommandArguments(at < 0 ? words : words.slice(0, at));
  if (at < 0) return { program: undefined, args: [], assignments };
  const program = words[at] as string;
  return { program: program.split("/").at(-1) ?? program, args: maskCommandArguments(words.slice(at + 1), program), assignments };
}
