/**
 * Write sharding for an index whose key many items share: the shard is a hash of the item's
 * own key, appended to the shared value, so the writes spread over `count` partitions of the
 * index; a read queries every shard and merges them. One DynamoDB partition takes about 1,000
 * writes a second: a carrier NAT's address or the sweeper's one marker would otherwise hold all
 * their writes on one.
 */
import { createHash } from "node:crypto";

export interface Shards {
  /** The sharded key of an item whose own unique key is `itemKey`. */
  keyOf(shared: string, itemKey: string): string;
  /** Every sharded key of a shared value, for a read. */
  all(shared: string): string[];
}

export const shards = (count: number): Shards => ({
  keyOf: (shared, itemKey) =>
    `${shared}#${createHash("sha256").update(itemKey).digest().readUInt32BE(0) % count}`,
  all: (shared) => Array.from({ length: count }, (_, shard) => `${shared}#${shard}`),
});
