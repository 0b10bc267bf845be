import { useRef, useState } from "preact/hooks";

/**
 * Copies the field's text with the browser's older copy command, from the field itself: what a
 * page served over plain HTTP to another machine (no `navigator.clipboard` there) still has.
 */
const copySelected = (input: HTMLInputElement | null): boolean => {
  if (!input) return false;
  input.focus();
  input.select();
  input.setSelectionRange(0, input.value.length);
  try {
    return document.execCommand("copy");
  } catch {
    return false;
  }
};

/** A label inside a sentence: "New key" → "new key", "Link URL" → "link URL". */
const inSentence = (label: string): string =>
  /^[A-Z][a-z]/.test(label) ? label.charAt(0).toLowerCase() + label.slice(1) : label;

/**
 * A read-only field with a Copy button that puts the exact value on the clipboard (a key's
 * underscores and all: nothing is retyped from the screen); where the browser allows neither
 * way, the text is selected for the user to copy by hand.
 */
export function CopyField(props: { value: string; label: string; describedBy?: string }) {
  const input = useRef<HTMLInputElement>(null);
  /**
   * What the last press did, with the value it did it to: a new value in the field (a second
   * key made) was not copied, so the message of the one before must not stay beside it.
   */
  const [said, setSaid] = useState<{ value: string; message: string } | null>(null);
  const message = said?.value === props.value ? said.message : null;
  const what = inSentence(props.label);

  const copy = async () => {
    const value = props.value;
    const setMessage = (text: string) => setSaid({ value, message: text });
    try {
      if (!navigator.clipboard) throw new Error("no clipboard");
      await navigator.clipboard.writeText(value);
      setMessage(`Copied the ${what}.`);
    } catch {
      if (copySelected(input.current)) {
        setMessage(`Copied the ${what}.`);
        return;
      }
      input.current?.focus();
      input.current?.select();
      setMessage("Selected: press Ctrl+C (⌘C on a Mac) to copy.");
    }
  };

  return (
    <div class="copy-field">
      <div class="copy-row">
        <input
          ref={input}
          type="text"
          readOnly
          class="mono"
          aria-label={props.label}
          aria-describedby={props.describedBy}
          value={props.value}
          spellcheck={false}
          autocomplete="off"
          onFocus={(event) => event.currentTarget.select()}
        />
        {/* Named in its text, not by aria-label, so that only the field is labelled the field's way. */}
        <button type="button" onClick={copy}>
          Copy<span class="visually-hidden"> the {what}</span>
        </button>
      </div>
      <div role="status" class="status">
        {message}
      </div>
    </div>
  );
}
