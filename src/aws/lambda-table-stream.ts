/** A table-stream worker on AWS: its composition behind the table's stream of new items. */

import { createNewItemsHandler } from "../adapters/dynamodb/new-items-handler.ts";
import type { TableId } from "../adapters/dynamodb/table-definitions.ts";
import { toTouch } from "../adapters/dynamodb/touches.ts";
import type { ComposedRow, Composition } from "../functions/adapters.ts";
import type { TableStreamWorkerDefinition } from "../workers/table-stream-workers.ts";
import { AWS_RUNTIME, awsAdapters, type Providers } from "./lambda.ts";
import { logged } from "./logged.ts";

/** How each table that feeds a worker reads its items: as its store does. */
const ITEMS = {
  touches: toTouch,
} as const satisfies Partial<Record<TableId, (item: Record<string, unknown>) => unknown>>;

type ItemOf<T> = T extends keyof typeof ITEMS ? ReturnType<(typeof ITEMS)[T]> : never;

export const lambdaTableStream = async <
  R extends TableStreamWorkerDefinition & ComposedRow & { readonly table: keyof typeof ITEMS },
>(
  fn: Composition<R, (items: readonly ItemOf<R["table"]>[]) => Promise<void>>,
  providers: Providers<R>,
) =>
  logged(
    createNewItemsHandler(
      ITEMS[fn.row.table] as (item: Record<string, unknown>) => ItemOf<R["table"]>,
      fn.compose(await awsAdapters(fn.row, providers), AWS_RUNTIME),
    ),
  );
