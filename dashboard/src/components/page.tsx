import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

let firstPage = true;

/**
 * A page: its <h1>, the document's title, and focus on the heading when the user came here
 * from another page (so a screen reader announces where they are), not on the first load.
 */
export function Page(props: { title: string; subtitle?: string; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Attribution dashboard`;
  }, [props.title]);
  useEffect(() => {
    if (firstPage) {
      firstPage = false;
      return;
    }
    heading.current?.focus({ preventScroll: false });
  }, []);
  return (
    <div class="page">
      <div class="page-head">
        <h1 ref={heading} tabIndex={-1}>
          {props.title}
        </h1>
        {props.subtitle ? <p class="subtitle">{props.subtitle}</p> : null}
      </div>
      {props.children}
    </div>
  );
}

/** An error shown where it happened, read out at once. Renders the live region even when empty. */
export function ErrorText(props: { message: string | null; id?: string }) {
  return (
    <div class="error" role="alert" id={props.id}>
      {props.message}
    </div>
  );
}

/** A polite status line (saved, created, copied…). */
export function StatusText(props: { message: string | null; id?: string }) {
  return (
    <div class="status" role="status" id={props.id}>
      {props.message}
    </div>
  );
}

/**
 * A wide table's box: scrolls sideways on a narrow screen instead of widening the page. A
 * keyboard scrolls it too, once it has the focus, and a screen reader names it by its table
 * (`label`: the table's name): a section with a name is a region.
 */
export function TableScroll(props: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a box that scrolls is reached by keyboard to scroll it.
    <section class="table-scroll" aria-label={`${props.label} table`} tabIndex={0}>
      {props.children}
    </section>
  );
}
