import { useRef, useState } from "preact/hooks";

/**
 * A read-only field with a Copy button: the clipboard where the browser allows it, else the
 * text is selected for the user to copy by hand.
 */
export function CopyField(props: { value: string; label: string; describedBy?: string }) {
  const input = useRef<HTMLInputElement>(null);
  const [message, setMessage] = useState<string | null>(null);

  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error("no clipboard");
      await navigator.clipboard.writeText(props.value);
      setMessage("Copied.");
    } catch {
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
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <div role="status" class="status">
        {message}
      </div>
    </div>
  );
}
