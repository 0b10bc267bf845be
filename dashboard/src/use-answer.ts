/**
 * A page's answer to its current question: the service is asked again whenever the question
 * changes, and only the latest question's answer is shown (an older one that comes late is
 * dropped). No question (the choices cannot be asked, a range that cannot be shown) clears the
 * answer: figures of another question never stay on screen.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { refusalOf } from "./components/date-range.tsx";

export interface Answer<T> {
  readonly answer: T | null;
  readonly loading: boolean;
  /** The service's refusal, in words. */
  readonly error: string | null;
  /** The question the answer or refusal is of; null before the first. */
  readonly of: string | null;
}

/** `question` is a text (the choices as JSON), so that the same choices ask nothing again. */
export const useAnswer = <T>(question: string | null, ask: (question: string) => Promise<T>) => {
  const [state, setState] = useState<Answer<T>>({
    answer: null,
    loading: false,
    error: null,
    of: null,
  });
  const latest = useRef(0);
  // The asking function changes with every render; the question is what asks again.
  const asker = useRef(ask);
  asker.current = ask;
  useEffect(() => {
    const call = ++latest.current;
    if (question === null) {
      setState({ answer: null, loading: false, error: null, of: null });
      return;
    }
    setState((before) => ({ ...before, loading: true, error: null }));
    asker.current(question).then(
      (answer) => {
        if (call === latest.current)
          setState({ answer, loading: false, error: null, of: question });
      },
      (caught: unknown) => {
        if (call === latest.current)
          setState({ answer: null, loading: false, error: refusalOf(caught), of: question });
      },
    );
  }, [question]);
  // The question's answer or refusal is in: not before the first render's ask has begun.
  const settled = question !== null && state.of === question && !state.loading;
  return { ...state, settled };
};
