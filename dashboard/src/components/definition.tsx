import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";

/**
 * What a figure means, one click away: a small "i" button beside the figure's name shows and
 * hides a sentence in plain words. The button names the figure it explains and says whether the
 * sentence is open; the sentence is rendered either way (hidden while closed), so the button
 * always controls an element that exists.
 */
export function InfoButton(props: {
  /** The definition's element. */
  controls: string;
  term: string;
  open: boolean;
  onToggle: () => void;
}) {
  const name = `What ${props.term} means`;
  return (
    <button
      type="button"
      class="info"
      aria-expanded={props.open}
      aria-controls={props.controls}
      aria-label={name}
      title={name}
      onClick={props.onToggle}
    >
      <span aria-hidden="true">i</span>
    </button>
  );
}

export function DefinitionText(props: { id: string; open: boolean; children: ComponentChildren }) {
  return (
    <p id={props.id} class="definition" hidden={!props.open}>
      {props.children}
    </p>
  );
}

/** A figure's toggle and its definition, for a figure that has one of each. */
export function useDefinition(id: string, term: string, definition: ComponentChildren) {
  const [open, setOpen] = useState(false);
  return {
    toggle: (
      <InfoButton controls={id} term={term} open={open} onToggle={() => setOpen((was) => !was)} />
    ),
    text: (
      <DefinitionText id={id} open={open}>
        {definition}
      </DefinitionText>
    ),
  };
}
