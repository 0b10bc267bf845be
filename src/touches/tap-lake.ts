/**
 * The taps the link host stored, to the lake: on AWS the tap function's one write is the touch
 * store's item, and this worker, fed by the touches table's stream of new items, puts their
 * rows on the lake's touches stream (src/workers/table-stream-workers.ts). The stream delivers
 * at least once: a row put twice is counted once by the lake's readers (by click id). Its
 * composition is beside its row (src/workers/tap-lake.ts). A tap's cost is converted to USD
 * here, off the tap's path.
 */
import type { FxRates } from "../fx/ecb-rates.ts";
import type { RecordStream } from "../ports/lake.ts";
import type { Touch } from "../ports/touches.ts";
import { touchRow } from "./touch.ts";

/** Handles one batch of new touches, in the stream's order; rejects to have it sent again. */
export type NewTouchesHandler = (touches: readonly Touch[]) => Promise<void>;

export const createTapLake =
  (lake: RecordStream, fx: Pick<FxRates, "toUsd">): NewTouchesHandler =>
  async (touches) => {
    if (touches.length > 0) await lake.put(touches.map((touch) => touchRow(touch, fx)));
  };
