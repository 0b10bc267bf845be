/**
 * Which installs send from an address (src/ports/address-crowds.ts), kept in the touches table
 * beside the touches matching reads with them: the same by-IP index, the same expiry. An item
 * is one install seen at one address in one clock hour, so a count is exact: the distinct
 * installs among an address's items of the day, read newest first and only until the count
 * reaches what the caller asks (matching asks whether the address is a crowd, so a carrier
 * NAT's thousands of installs cost a page, not thousands of items). A probabilistic counter
 * (HyperLogLog registers in one item per address and day) would save no write: each sighting
 * would be a read-modify-write of that one item, which every request from a busy address
 * would contend for, where these items are plain idempotent puts.
 *
 * Its index key is the address's (`<app>#<IP match key>#seen`, apart from the touches' sharded
 * keys); its sort key is `<hour>#<install tag>`, unique per item, so dynalite's index keeps
 * every one. It is not sharded: an address's items are written once an hour per install, far
 * below what one index partition takes, where its taps may come in bursts. The install is named
 * by a hash of its id, which tells installs apart and no more. An item carries its keys and its
 * expiry only, none of a touch's attributes, so nothing that takes the table's touches by one
 * of them (their `source`, their advertising id) takes a sighting.
 */
import { type DynamoDBDocumentClient, QueryCommand } from "@aws-sdk/lib-dynamodb";
import type { AddressSighting, SightingWindow } from "../../ports/address-crowds.ts";
import { ipMatchKey } from "../../touches/ip.ts";
import {
  installTag,
  sightingExpirySeconds,
  sightingHour,
  windowEndKey,
} from "../../touches/lookup-keys.ts";
import { indexOf, SIGHTING_KEY_PREFIX } from "./table-definitions.ts";

/** Items read a page of the index at a time. */
const PAGE = 100;

const BY_IP = indexOf("touches", "byIp");

const addressKey = (appId: string, ip: string) => `${appId}#${ip}#seen`;

/** A sighting's item, or null for an address matching never reads (none at all). */
export const sightingItem = (sighting: AddressSighting): Record<string, unknown> | null => {
  const ip = ipMatchKey(sighting.ip);
  if (!ip) return null;
  const hour = sightingHour(Date.parse(sighting.at));
  const sortKey = `${hour}#${installTag(sighting.appId, sighting.serviceId)}`;
  return {
    clickId: `${SIGHTING_KEY_PREFIX}${sighting.appId}#${ip}#${sortKey}`,
    [BY_IP.partitionKey]: addressKey(sighting.appId, ip),
    [BY_IP.sortKey]: sortKey,
    expiresTtl: sightingExpirySeconds(hour),
  };
};

/** The distinct installs of the app seen at the address in the window's hours, up to `cap`. */
export const countInstallsAt = async (
  doc: DynamoDBDocumentClient,
  table: string,
  ip: string,
  window: SightingWindow,
  cap: number,
): Promise<number> => {
  const address = ipMatchKey(ip);
  if (!address || cap <= 0) return 0;
  const installs = new Set<string>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new QueryCommand({
        TableName: table,
        IndexName: BY_IP.name,
        KeyConditionExpression: "#key = :key AND #sort BETWEEN :from AND :to",
        ExpressionAttributeNames: { "#key": BY_IP.partitionKey, "#sort": BY_IP.sortKey },
        ExpressionAttributeValues: {
          ":key": addressKey(window.appId, address),
          ":from": sightingHour(window.from.getTime()),
          // The window's last millisecond included.
          ":to": windowEndKey(window.to),
        },
        ProjectionExpression: "#sort",
        ScanIndexForward: false,
        Limit: PAGE,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      const tag = String(item[BY_IP.sortKey]).split("#")[1];
      if (tag) installs.add(tag);
      if (installs.size >= cap) return cap;
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return installs.size;
};
