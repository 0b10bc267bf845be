/**
 * The tap-lake worker's composition on AWS: the lake's touches stream and the rates a tap's
 * cost is converted with (src/touches/tap-lake.ts).
 */
import { composition } from "../functions/adapters.ts";
import { createTapLake } from "../touches/tap-lake.ts";
import { TABLE_STREAM_WORKERS } from "./table-stream-workers.ts";

const [TAP_LAKE] = TABLE_STREAM_WORKERS;

export const tapLakeFunction = /* @__PURE__ */ composition(TAP_LAKE, ({ streams, fx }) =>
  createTapLake(streams.touches, fx),
);
