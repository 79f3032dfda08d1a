import { reportFieldEdit } from "./field-edits";
import { quoted, type ObserverState } from "./observer-state";

/**
 * Keys: typing in a field marks it edited (the field observer reports the edit, never the keys);
 * Enter, Escape and modifier shortcuts are steps of their own, after the field's edit. Ordinary
 * typing is never recorded.
 */

/** Ordinary editing shortcuts are typing, not commands: never recorded. */
const EDITING_KEYS = new Set(["a", "c", "v", "x", "y", "z", "arrowleft", "arrowright", "arrowup", "arrowdown", "backspace", "delete", "home", "end"]);
const MODIFIER_KEYS = new Set(["Control", "Meta", "Alt", "Shift", "AltGraph", "CapsLock", "Fn", "OS"]);

export function observeKeyboard(state: ObserverState): () => void {
  const controller = new AbortController();
  const { fields } = state;

  const onKeyDown = (event: Event): void => {
    const keyboard = event as KeyboardEvent;
    // Shadow roots on the way are attached: a key may act inside one whose `change` or `submit` follows.
    const target = state.startOf(event);
    if (target === undefined) return;
    const field = state.fieldOf(target);
    if (field !== undefined && editsText(keyboard, field)) {
      fields.dirty.add(field);
      fields.lastSeen.set(field, state.fieldValue(field));
      return;
    }
    if (keyboard.repeat || keyboard.isComposing) return;
    const key = shortcutName(keyboard, target);
    if (key === undefined) return;
    // The field's edit goes first, even one made without keys (a paste, autofill): a replay fills, then presses.
    if (field !== undefined) reportFieldEdit(state, field, true);
    const onPage = target.tagName === "BODY" || target.tagName === "HTML";
    const scrub = state.scrubber();
    const description = onPage ? undefined : state.describe(field ?? target, scrub);
    const where = description?.name ? ` in ${quoted(description.name)}` : "";
    state.observe("keydown", `Press ${key}${where}`, description, undefined, scrub);
  };

  state.onRoot((root, kind) => {
    if (kind === "document") state.listen(root, "keydown", onKeyDown, controller.signal);
  });
  return () => controller.abort();
}

/**
 * Whether a key press edits the text of the field it is pressed in: printable keys (with Ctrl or
 * Meta only paste, cut, undo and redo), deletion, composition, Enter in a multi-line field. Keys
 * that move or leave (Tab, arrows) do not, so a field a page script cleared is not taken for typing.
 */
function editsText(event: KeyboardEvent, field: Element): boolean {
  const { key } = event;
  if (event.isComposing || key === "Process" || key === "Unidentified" || key === "Dead" || key === "Backspace" || key === "Delete") return true;
  if (key === "Enter") return field.tagName !== "INPUT" && !event.ctrlKey && !event.metaKey;
  if (key.length !== 1) return false;
  return !(event.ctrlKey || event.metaKey) || ["v", "x", "z", "y"].includes(key.toLowerCase());
}

/**
 * "Enter", "Escape", "Ctrl+S", "Ctrl+Shift+P" — or undefined for anything that is typing: a
 * printable key without Ctrl/Meta, AltGr combinations, editing shortcuts, Enter in a multi-line field.
 */
function shortcutName(event: KeyboardEvent, target: Element): string | undefined {
  const { key } = event;
  if (MODIFIER_KEYS.has(key) || event.getModifierState?.("AltGraph")) return undefined;
  const command = event.ctrlKey || event.metaKey;
  if (!command) {
    if (key === "Escape") return "Escape";
    if (key !== "Enter" || event.altKey) return undefined;
    const multiLine = target.tagName === "TEXTAREA" || (target as HTMLElement).isContentEditable;
    return multiLine ? undefined : event.shiftKey ? "Shift+Enter" : "Enter";
  }
  if (EDITING_KEYS.has(key.toLowerCase()) && !event.altKey) return undefined;
  const code = /^(?:Key|Digit)([A-Z0-9])$/.exec(event.code)?.[1];
  const name = code ?? (key.length === 1 ? key.toUpperCase() : key);
  const parts = [event.ctrlKey ? "Ctrl" : "", event.altKey ? "Alt" : "", event.shiftKey ? "Shift" : "", event.metaKey ? "Meta" : "", name];
  return parts.filter(Boolean).join("+");
}
