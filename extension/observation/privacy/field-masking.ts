import type { MaskedField } from "../../../shared/learning/observed-actions/observed-action";
import { isAlwaysSecretField, lengthClass, looksLikeCardNumber, type FieldHints } from "../../../shared/observation/masking-rules";
import { createValueRefs } from "../../../shared/observation/value-ref";
import { NON_TEXT_INPUT_TYPES, inputType } from "../names/accessible-name";
import type { CaptureConfig } from "../common/capture-messages";
import { assertNever } from "../../../shared/common/assert-never";

/**
 * Masking at the source (DESIGN §4, issue #4): a field's value is turned into a `MaskedField` here,
 * inside the observer that read it, before anything is built around it. Secrets (passwords,
 * one-time codes, card data, anything whose type, autocomplete, name, id or label says so, and any
 * value that contains a card-like number) are masked in every mode, `none` included, and never hashed.
 */

export type TextEntryMode = CaptureConfig["text_entry_mode"];

/**
 * Roles whose element takes typed text without being a form field (issue 13): a `div role=textbox`
 * that renders what is typed into itself, a search box, an autocompleting combobox. A select-only
 * combobox (no `aria-autocomplete`) shows a choice, not typed text, and stays a clickable control.
 */
export const TYPED_ROLE_SELECTOR = "[role=textbox], [role=searchbox], [role=combobox][aria-autocomplete]";

/** The editable field an event target belongs to: a text-like input, a textarea, the root of an editable region, or an element with a typed-text role. */
export function textFieldOf(target: Element): HTMLInputElement | HTMLTextAreaElement | HTMLElement | undefined {
  if (target.tagName === "TEXTAREA") return target as HTMLTextAreaElement;
  if (target.tagName === "INPUT") return NON_TEXT_INPUT_TYPES.has(inputType(target)) ? undefined : (target as HTMLInputElement);
  const html = target as HTMLElement;
  if (html.isContentEditable === true) {
    let root = html;
    while (root.parentElement?.isContentEditable === true) root = root.parentElement;
    // An editable region inside a typed-text role (a rich editor's surface) belongs to that role.
    return (root.closest(TYPED_ROLE_SELECTOR) as HTMLElement | null) ?? root;
  }
  const typed = target.closest(TYPED_ROLE_SELECTOR);
  // An input or select inside a combobox's wrapper is a field of its own (or a choice).
  return typed === null || typed.tagName === "SELECT" ? undefined : (typed as HTMLElement);
}

/** Tags that start a new line in rendered text: an editor's paragraphs and lines are told apart by them. */
const BLOCK_TAGS = new Set(["DIV", "P", "LI", "BR", "H1", "H2", "H3", "H4", "H5", "H6", "PRE", "BLOCKQUOTE", "TR", "SECTION", "ARTICLE", "UL", "OL", "TABLE"]);

/** The text of an editable region with its blocks on lines of their own (what `innerText` gives, without a layout). */
export function blockText(root: Node): string {
  let text = "";
  const visit = (node: Node): void => {
    if (node.nodeType === 3) {
      text += node.nodeValue ?? "";
      return;
    }
    if (node.nodeType !== 1 && node.nodeType !== 11) return;
    const block = node.nodeType === 1 && BLOCK_TAGS.has((node as Element).tagName);
    if (block) text += "\n";
    for (let child = node.firstChild; child !== null; child = child.nextSibling) visit(child);
    if (block) text += "\n";
  };
  visit(root);
  return text.replace(/\n{2,}/g, "\n").trim();
}

/** What was typed into a field. It stays in this module's callers' memory and is only ever passed to `mask` and the privacy boundary. */
export function readFieldValue(field: Element): string {
  if (field.tagName === "INPUT" || field.tagName === "TEXTAREA") return (field as HTMLInputElement).value;
  return blockText(field);
}

export function fieldHints(field: Element, label: string): FieldHints {
  return {
    inputType: field.tagName === "INPUT" ? inputType(field) : undefined,
    autocomplete: field.getAttribute("autocomplete") ?? undefined,
    name: field.getAttribute("name") ?? undefined,
    id: field.id || undefined,
    label: label || undefined,
  };
}

/** True when some run of digits (spaces and dashes allowed) inside the text looks like a card number. */
export function containsCardLikeNumber(value: string): boolean {
  if (looksLikeCardNumber(value)) return true;
  for (const match of value.matchAll(/\d[\d -]{11,}\d/g)) {
    if (looksLikeCardNumber(match[0])) return true;
    // A longer run may hide a card number among other digits (an order id, a phone number).
    const digits = match[0].replace(/[\s-]/g, "");
    if (digits.length > 19) return true;
  }
  return false;
}

export interface FieldMasker {
  readonly mode: TextEntryMode;
  mask(value: string, hints: FieldHints): Promise<MaskedField>;
  /**
   * The same masking, at once: what an edit carries when the page is gone before `mask` finished
   * (issue #35: the field filled right before a navigation). Only `hash_only` differs: no hash.
   */
  maskNow(value: string, hints: FieldHints): MaskedField;
  /**
   * The session's masker as it is now: a value typed now is masked under the mode and key it was
   * typed under, even when its mask is worked out later (in idle time) and the session changed.
   */
  pin(): FieldMasker;
}

/** Limit of `MaskedFieldSchema.value`. */
const MAX_VALUE_LENGTH = 1000;

/**
 * A masker for one session's mode and key. The HMAC key is imported once (non-extractable) and
 * never leaves the page's memory: `hash_only` sends HMAC-SHA-256(key, value) so equal values match.
 */
export function createFieldMasker(config: Pick<CaptureConfig, "text_entry_mode" | "hash_key">): FieldMasker {
  const mode = config.text_entry_mode;
  let key: Promise<CryptoKey | undefined> | undefined;
  const hmacKey = (): Promise<CryptoKey | undefined> => {
    key ??= importHmacKey(config.hash_key);
    return key;
  };
  /** The same value's reference is asked for its mask now and its mask with a hash: worked out once (issue #32). */
  const valueRef = createValueRefs(config.hash_key);
  /** What an address that carries this value names it by (url-rule.ts): secrets have none, so they are never replayed. */
  const refOf = (value: string): { value_ref?: string } => {
    const ref = valueRef(value);
    return ref === undefined ? {} : { value_ref: ref };
  };
  /** Everything but the hash: undefined when the mode asks for one. */
  const maskWithoutHash = (value: string, hints: FieldHints): MaskedField | undefined => {
    const length_class = lengthClass(value.length);
    if (isAlwaysSecretField(hints)) return { masked: true, length_class, reason: "secret_field" };
    if (containsCardLikeNumber(value)) return { masked: true, length_class, reason: "card_number" };
    switch (mode) {
      case "mask_text":
        return { masked: true, length_class, ...refOf(value) };
      case "hash_only":
        return undefined;
      case "none":
        return { masked: false, length_class, value: value.slice(0, MAX_VALUE_LENGTH), ...refOf(value) };
      default:
        return assertNever(mode);
    }
  };
  const masker: FieldMasker = {
    mode,
    pin: () => masker,
    maskNow: (value, hints) =>
      maskWithoutHash(value, hints) ?? {
        masked: true,
        length_class: lengthClass(value.length),
        reason: "page left before the hash was ready",
        ...refOf(value),
      },
    async mask(value, hints) {
      const now = maskWithoutHash(value, hints);
      if (now !== undefined) return now;
      // hash_only: crypto.subtle exists only in secure contexts; without it the value is masked, not sent.
      const length_class = lengthClass(value.length);
      const cryptoKey = await hmacKey();
      if (cryptoKey === undefined) return { masked: true, length_class, reason: "hash_unavailable", ...refOf(value) };
      return { masked: true, length_class, value_hash: await hmacHex(cryptoKey, value), ...refOf(value) };
    },
  };
  return masker;
}

async function importHmacKey(hashKey: string): Promise<CryptoKey | undefined> {
  const subtle = globalThis.crypto?.subtle;
  if (subtle === undefined) return undefined;
  return subtle.importKey("raw", decodeKey(hashKey), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

/** The key is base64url (CaptureConfig); anything else is used as its UTF-8 bytes rather than refused. */
function decodeKey(hashKey: string): Uint8Array<ArrayBuffer> {
  if (/^[A-Za-z0-9_-]+={0,2}$/.test(hashKey)) {
    try {
      const binary = atob(hashKey.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, ""));
      const bytes = new Uint8Array(binary.length);
      for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
      return bytes;
    } catch {
      // Not valid base64 after all: fall through to the UTF-8 bytes.
    }
  }
  return new TextEncoder().encode(hashKey);
}

async function hmacHex(key: CryptoKey, value: string): Promise<string> {
  const signature = await crypto.subtle.sign("HMAC", key, UTF8.encode(value));
  return toHex(signature);
}

export function toHex(buffer: ArrayBuffer): string {
  let hex = "";
  for (const byte of new Uint8Array(buffer)) hex += (byte < 16 ? "0" : "") + byte.toString(16);
  return hex;
}

/** Stateless, so one serves every call. */
const UTF8 = new TextEncoder();

/** SHA-256 hex of a string (snapshots are content-addressed by it); undefined outside a secure context. */
export async function sha256Hex(text: string): Promise<string | undefined> {
  const subtle = globalThis.crypto?.subtle;
  if (subtle === undefined) return undefined;
  return toHex(await subtle.digest("SHA-256", UTF8.encode(text)));
}

/** A field whose value is typed text: a text-like input, a textarea, an editable region's root, a typed-text role. */
export function isTypedField(element: Element): boolean {
  return textFieldOf(element) === element;
}
