import type { Touch } from "./touches.ts";

/**
 * Where a counted tap's click is written before the tap is answered: its one durable write,
 * from which the touch store and the lake follow (on AWS the touch store's item, whose table's
 * stream feeds the lake; embedded, the click log, which writes both after the answer).
 */
export interface ClickSink {
  record(click: Touch): Promise<void>;
}
