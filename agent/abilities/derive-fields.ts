/**
 * What our records need and a public Agent Skills bundle does not carry, derived from its name and
 * description (DESIGN §8 "imported bundles as published"): trigger phrases, "when to use" lines,
 * a title, and a summary within §0.2C's 500 characters. Deterministic; the bundle's own text is
 * never changed, and the import record says what was derived.
 */

const TRIGGER_MAX = 120;
const MAX_TRIGGERS = 12;

/** Sentences, split at . ! ? followed by a space (abbreviations like "e.g." are rejoined). */
function sentencesOf(text: string): string[] {
  const parts = text
    .replace(/\s+/g, " ")
    .trim()
    .split(/(?<=[.!?])\s+(?=[A-Z("'])/);
  const out: string[] = [];
  for (const part of parts) {
    const last = out[out.length - 1];
    if (last !== undefined && /\b(e\.g|i\.e|etc|vs|approx)\.$/i.test(last)) out[out.length - 1] = `${last} ${part}`;
    else out.push(part);
  }
  return out.filter((sentence) => sentence.length > 0);
}

const WHEN =
  /\b(use (this skill )?(when|for|to|whenever)|use it (when|for)|should be used (when|for)|when (claude|the user|users|you|asked|a user|someone)( needs to| wants to| asks to| asks for)?|whenever|if (the |a )?(user|users|you|someone)|triggers? (on|when|include)|for requests)\b/i;
/** "Do NOT use for …", "Not for …": when the skill must not be used (negative triggers). */
const NOT_WHEN = /\b(do not|don't|never|not to) use( this skill| it)?( for| when| with| on| to)?|\bnot for\b/i;

const isWhen = (sentence: string) => WHEN.test(sentence) && !NOT_WHEN.test(sentence);

/** The description's sentences that say when to use the skill. */
export function whenToUseOf(description: string): string[] {
  return sentencesOf(description)
    .filter(isWhen)
    .map((sentence) => (sentence.length <= 240 ? sentence : `${sentence.slice(0, 239)}…`))
    .slice(0, 20);
}

/** Up to 500 characters, cut after a whole sentence where one fits, else after a whole word. */
export function summaryOf(description: string, max = 500): string {
  const clean = description.replace(/\s+/g, " ").trim();
  if (clean.length <= max) return clean;
  let summary = "";
  for (const sentence of sentencesOf(clean)) {
    const next = summary.length === 0 ? sentence : `${summary} ${sentence}`;
    if (next.length > max) break;
    summary = next;
  }
  if (summary.length >= 40) return summary;
  const cut = clean.slice(0, max - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), 1)).replace(/[,;:]$/, "")}…`;
}

/** The first Markdown heading of the body when it is short enough, else the name in words. */
export function titleOf(name: string, body: string): string {
  const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(body)?.[1]?.replace(/[*_`]/g, "").trim();
  if (heading !== undefined && heading.length > 0 && heading.length <= 120) return heading;
  return (
    name
      .split("-")
      // Short words of a name are usually acronyms (pdf, csv, api); the rest are capitalised.
      .map((word) =>
        /^[a-z]{2,3}$/.test(word) && !/^(and|or|for|the|to|of|an|in|on|via)$/.test(word)
          ? word.toUpperCase()
          : `${word.charAt(0).toUpperCase()}${word.slice(1)}`,
      )
      .join(" ")
  );
}

const STOPWORDS = new Set([
  "the",
  "and",
  "for",
  "with",
  "this",
  "that",
  "from",
  "into",
  "your",
  "you",
  "are",
  "was",
  "its",
  "not",
  "but",
  "any",
  "all",
  "can",
  "will",
  "use",
  "when",
  "which",
  "what",
  "them",
  "they",
  "their",
  "has",
  "have",
  "still",
  "also",
  "need",
  "needs",
]);

function phrase(text: string): string | undefined {
  const clean = text
    .toLowerCase()
    .replace(/(\w)['’](\w)/g, "$1$2")
    .replace(/[“”"'‘’`()[\]{},]/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^\d+\s+/, "")
    .replace(
      /^(and|or|to|for|when|if|the user wants to|the user asks to|the user asks for|users ask to|users ask for|you need to|claude needs to|asked to|asks to|asks for|needs to|wants to)\s+/,
      "",
    )
    .replace(/[.,;:!?]+$/, "")
    .replace(/\s+(for|to|with|of|and|or|in|on)$/, "")
    .trim();
  const words = clean.split(" ").filter((word) => word.length > 0);
  const meaningful = words.filter((word) => word.length > 2 && !STOPWORDS.has(word));
  if (words.length < 2 || words.length > 14 || meaningful.length < 2 || clean.length > TRIGGER_MAX) return undefined;
  return clean;
}

/**
 * The clauses of a "when" clause list: split at commas, semicolons, colons and parentheses, a
 * piece under three words joined to the next ("create, read, edit, or manipulate Word documents"
 * stays one), and at "or" only where both sides are clauses of their own.
 */
function clausesOf(text: string): string[] {
  const pieces = text
    .split(/[,;:]|\s\(/)
    .map((piece) => piece.trim())
    .filter((piece) => piece.length > 0);
  const joined: string[] = [];
  let carry = "";
  for (const piece of pieces) {
    const current = carry === "" ? piece : `${carry} ${piece}`;
    if (current.split(/\s+/).length < 3) carry = current;
    else {
      joined.push(current);
      carry = "";
    }
  }
  if (carry !== "") joined.push(carry);
  return joined.flatMap((clause) => {
    const halves = clause.split(/\s(?:or|and\/or)\s/i);
    return halves.length > 1 && halves.every((half) => half.trim().split(/\s+/).length >= 4) ? halves : [clause.replace(/^\s*or\s+/i, "")];
  });
}

/** Negative triggers: the clauses of "Do NOT use for …" sentences, at most eight. */
export function deriveNegativeTriggers(description: string): string[] {
  const out: string[] = [];
  for (const sentence of sentencesOf(description).filter((candidate) => NOT_WHEN.test(candidate))) {
    const match = NOT_WHEN.exec(sentence);
    for (const clause of clausesOf(match === null ? sentence : sentence.slice(match.index + match[0].length))) {
      const candidate = phrase(clause);
      if (candidate !== undefined && !out.includes(candidate) && out.length < 8) out.push(candidate);
    }
  }
  return out;
}

/**
 * Trigger phrases: the name in words, then the clauses of the "when to use" sentences (split at
 * commas and semicolons, and at "or" only between two whole clauses), then the first sentence up
 * to its first colon or semicolon; whole clauses of 2–14 words with at least two meaningful
 * words, at most twelve, no repeats.
 */
export function deriveTriggers(name: string, description: string): string[] {
  const out: string[] = [];
  const add = (candidate: string | undefined) => {
    if (candidate !== undefined && !out.includes(candidate) && out.length < MAX_TRIGGERS) out.push(candidate);
  };
  const named = name.replace(/-/g, " ");
  add(named.includes(" ") ? named : `use ${named}`);
  const sentences = sentencesOf(description);
  for (const sentence of sentences.filter(isWhen)) {
    const match = WHEN.exec(sentence);
    for (const clause of clausesOf(match === null ? sentence : sentence.slice(match.index + match[0].length))) add(phrase(clause));
  }
  const first = sentences.find((sentence) => !WHEN.test(sentence) && !NOT_WHEN.test(sentence));
  if (first !== undefined) {
    const head = first.split(/[:;]/)[0] ?? "";
    add(phrase(head.replace(/,/g, "")) ?? phrase(head.split(",")[0] ?? ""));
  }
  return out;
}
