/**
 * Where a function's composition lives, written in its table's row as data: a module under
 * `src/` and the name it exports, `<path>#<export>`. Rows stay free of handler imports (a Lambda
 * bundle that reads its row holds no other function), and yet name their handler, so the AWS
 * entry (lambdas/entries.ts) and the embedded wiring (./compositions.ts) are both derived from
 * the row alone.
 */
export type HandlerRef = `${string}.ts#${string}`;

export interface ParsedHandlerRef {
  /** The module's path under `src/`. */
  readonly path: string;
  /** The composition's export name. */
  readonly name: string;
}

export const parseHandlerRef = (ref: HandlerRef): ParsedHandlerRef => {
  const [path, name, ...rest] = ref.split("#");
  if (!path || !name || rest.length > 0 || path.startsWith("/") || path.includes("..")) {
    throw new Error(`${ref} is not <module under src>#<export>`);
  }
  return { path, name };
};
