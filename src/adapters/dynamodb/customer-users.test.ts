/**
 * The customer-user mapping's purge against a real DynamoDB-compatible server (dynalite on
 * disk): what it removes, and the mark it leaves for server-to-server lookups.
 */
import { CreateTableCommand } from "@aws-sdk/client-dynamodb";
import {
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  ScanCommand,
} from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import { cachedCustomerUserMap } from "../cache/cached-customer-users.ts";
import { dynaliteForTests } from "./dynamo-targets.test-support.ts";
import { createCustomerUserMap } from "./installs.ts";
import { ensureTables, indexOf, PURGED_CUSTOMER_USER_PREFIX } from "./table-definitions.ts";

const TABLE = LOCAL_TABLE_NAMES.customerUsers;

describe("DynamoDB customer-user mapping: the purge", () => {
  const dynamo = dynaliteForTests("dynamo-users-");

  const items = async () =>
    (await dynamo().doc.send(new ScanCommand({ TableName: TABLE, ConsistentRead: true }))).Items ??
    [];

  const listedUnder = async (appId: string, serviceId: string) =>
    (
      await dynamo().doc.send(
        new QueryCommand({
          TableName: TABLE,
          IndexName: indexOf("customerUsers", "byInstall").name,
          KeyConditionExpression: "installKey = :install",
          ExpressionAttributeValues: { ":install": `${appId}#${serviceId}` },
        }),
      )
    ).Items ?? [];

  const PURGED = { purged: true } as const;

  it("removes the mapping and leaves a mark of the install that keeps no id in clear", async () => {
    const users = createCustomerUserMap(dynamo().doc, TABLE);
    await users.put("com.p", "secret-user-77", "s1", "2026-11-01T10:00:00.000Z");
    await users.put("com.p", "other-user", "s9", "2026-11-01T10:00:00.000Z");
    expect(await users.get("com.p", "secret-user-77", PURGED)).toBeUndefined();
    await users.deleteInstall("com.p", "s1");

    expect(await users.get("com.p", "secret-user-77")).toBeUndefined();
    // So that a server naming the user is told the install was deleted, not "not known yet".
    expect(await users.get("com.p", "secret-user-77", PURGED)).toBe("s1");
    expect(await users.get("com.p", "other-user")).toBe("s9");
    expect(await users.get("com.p", "other-user", PURGED)).toBeUndefined();
    // Nothing of the id is left in clear, and the mark is keyed apart from every mapping.
    const stored = JSON.stringify(await items());
    expect(stored).not.toContain("secret-user-77");
    const marks = (await items()).filter((item) =>
      String(item.customerUserKey).startsWith(PURGED_CUSTOMER_USER_PREFIX),
    );
    expect(marks).toEqual([
      { customerUserKey: expect.stringMatching(/^#purged#com\.p#[0-9a-f]{64}$/), serviceId: "s1" },
    ]);
    // The by-install index lists no mark, so no later purge takes one for a mapping.
    expect(await listedUnder("com.p", "s1")).toEqual([]);
    // An id of another app, or never used, is as unknown as before.
    expect(await users.get("com.q", "secret-user-77", PURGED)).toBeUndefined();
    expect(await users.get("com.p", "never-used", PURGED)).toBeUndefined();
  });

  it("lets a later use by another install take over, and marks that one at its own purge", async () => {
    const users = createCustomerUserMap(dynamo().doc, TABLE);
    await users.put("com.r", "u1", "s1", "2026-11-01T10:00:00.000Z");
    await users.deleteInstall("com.r", "s1");
    expect(await users.get("com.r", "u1", PURGED)).toBe("s1");
    // The person signs in on a new install: even an event earlier than the purged use counts.
    expect(await users.put("com.r", "u1", "s2", "2026-10-01T10:00:00.000Z")).toEqual({
      serviceId: "s2",
      seenAt: "2026-10-01T10:00:00.000Z",
    });
    expect(await users.get("com.r", "u1")).toBe("s2");
    await users.deleteInstall("com.r", "s2");
    expect(await users.get("com.r", "u1")).toBeUndefined();
    expect(await users.get("com.r", "u1", PURGED)).toBe("s2");
    // A purge run again finds nothing more to do.
    await users.deleteInstall("com.r", "s1");
    expect(await users.get("com.r", "u1", PURGED)).toBe("s2");
  });

  it("keeps a mapping that moved to another install before the purge", async () => {
    const users = createCustomerUserMap(dynamo().doc, TABLE);
    await users.put("com.m", "u1", "s1", "2026-11-01T10:00:00.000Z");
    await users.put("com.m", "u1", "s2", "2026-11-02T10:00:00.000Z");
    await users.deleteInstall("com.m", "s1");
    expect(await users.get("com.m", "u1")).toBe("s2");
    await users.deleteInstall("com.m", "s2");
    expect(await users.get("com.m", "u1", PURGED)).toBe("s2");
  });

  /** The test's client, with `between` run once, after the first command `when` picks is answered. */
  const racing = (when: (command: unknown) => boolean, between: () => Promise<void>) => {
    let raced = false;
    const race = async (command: unknown) => {
      if (raced || !when(command)) return;
      raced = true;
      await between();
    };
    // The server's own client underneath, as the paginators check.
    const doc = dynamo().doc;
    return Object.assign(Object.create(doc) as DynamoDBDocumentClient, {
      send: async (command: never) => {
        const answer = await doc.send(command).catch(async (error: unknown) => {
          await race(command);
          throw error;
        });
        await race(command);
        return answer;
      },
    });
  };

  it("keeps a mapping that moved to another install while the purge ran, the index not yet showing it", async () => {
    const users = createCustomerUserMap(dynamo().doc, TABLE);
    await users.put("com.lag", "u1", "s1", "2026-11-01T10:00:00.000Z");
    // The mapping moves on after the purge's query of the by-install index, before its delete.
    const purging = createCustomerUserMap(
      racing(
        (command) => command instanceof QueryCommand,
        async () => {
          await users.put("com.lag", "u1", "s2", "2026-11-02T10:00:00.000Z");
        },
      ),
      TABLE,
    );
    await purging.deleteInstall("com.lag", "s1");
    expect(await users.get("com.lag", "u1")).toBe("s2");
  });

  it("writes a use again when the later one that refused it is purged before it is read", async () => {
    const users = createCustomerUserMap(dynamo().doc, TABLE);
    await users.put("com.gone", "u1", "s2", "2026-11-02T10:00:00.000Z");
    // A late use of the id by s1 is refused by s2's; s2 is purged before the refusal is read.
    const late = createCustomerUserMap(
      racing(
        (command) => command instanceof PutCommand,
        () => users.deleteInstall("com.gone", "s2"),
      ),
      TABLE,
    );
    expect(await late.put("com.gone", "u1", "s1", "2026-11-01T10:00:00.000Z")).toEqual({
      serviceId: "s1",
      seenAt: "2026-11-01T10:00:00.000Z",
    });
    expect(await users.get("com.gone", "u1")).toBe("s1");
  });

  it("keeps the id's other installs, the latest use first, and purges each with its install", async () => {
    const users = createCustomerUserMap(dynamo().doc, TABLE);
    const at = (day: number) => `2026-11-0${day}T10:00:00.000Z`;
    await users.put("com.o", "two-devices", "phone", at(1));
    expect(await users.otherInstalls("com.o", "two-devices")).toEqual([]);
    // The tablet takes over; the phone's later use is refused, and kept among the others.
    await users.put("com.o", "two-devices", "tablet", at(3));
    await users.put("com.o", "two-devices", "phone", at(2));
    await users.put("com.o", "two-devices", "old", at(1));
    expect(await users.get("com.o", "two-devices")).toBe("tablet");
    expect(await users.otherInstalls("com.o", "two-devices")).toEqual(["phone", "old"]);
    // Another user's, or another app's, are their own.
    expect(await users.otherInstalls("com.p", "two-devices")).toEqual([]);
    // The uses keep no id in clear (one written as its install's purge runs would stay): the
    // mapping alone names it.
    const named = (await items()).filter((item) => JSON.stringify(item).includes("two-devices"));
    expect(named.map((item) => item.serviceId)).toEqual(["tablet"]);
    await users.deleteInstall("com.o", "tablet");
    await users.deleteInstall("com.o", "phone");
    expect(await users.get("com.o", "two-devices")).toBeUndefined();
    expect(await users.otherInstalls("com.o", "two-devices")).toEqual(["old"]);
    await users.deleteInstall("com.o", "old");
    expect(await users.otherInstalls("com.o", "two-devices")).toEqual([]);
    // Nothing of the id is left in clear: the mapping and every use are gone, a mark stays.
    expect(JSON.stringify(await items())).not.toContain("two-devices");
  });

  it("keeps the install an id was taken from among its others, and not one that used it again", async () => {
    const users = createCustomerUserMap(dynamo().doc, TABLE);
    const at = (day: number) => `2026-11-0${day}T10:00:00.000Z`;
    await users.put("com.t", "u1", "phone", at(1));
    await users.put("com.t", "u1", "phone", at(2));
    expect(await users.otherInstalls("com.t", "u1")).toEqual([]);
    await users.put("com.t", "u1", "tablet", at(3));
    expect(await users.otherInstalls("com.t", "u1")).toEqual(["phone"]);
  });

  it("leaves one mark a mapping, and none for an install's uses of an id", async () => {
    const users = createCustomerUserMap(dynamo().doc, TABLE);
    const at = (day: number) => `2026-11-0${day}T10:00:00.000Z`;
    await users.put("com.u", "u1", "phone", at(1));
    await users.put("com.u", "u1", "tablet", at(2));
    await users.deleteInstall("com.u", "phone");
    await users.deleteInstall("com.u", "tablet");
    const left = (await items()).filter((item) => String(item.customerUserKey).includes("com.u#"));
    expect(left).toEqual([
      {
        customerUserKey: expect.stringMatching(/^#purged#com\.u#[0-9a-f]{64}$/),
        serviceId: "tablet",
      },
    ]);
  });

  it("refuses a table made before an index it now has, naming it", async () => {
    const { client } = dynamo();
    const table = "attribution-customer-users-before";
    // As an earlier version made it: the by-install index only.
    await client.send(
      new CreateTableCommand({
        TableName: table,
        BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: [
          { AttributeName: "customerUserKey", AttributeType: "S" },
          { AttributeName: "installKey", AttributeType: "S" },
        ],
        KeySchema: [{ AttributeName: "customerUserKey", KeyType: "HASH" }],
        GlobalSecondaryIndexes: [
          {
            IndexName: indexOf("customerUsers", "byInstall").name,
            KeySchema: [{ AttributeName: "installKey", KeyType: "HASH" }],
            Projection: { ProjectionType: "ALL" },
          },
        ],
      }),
    );
    await expect(
      ensureTables(client, { ...LOCAL_TABLE_NAMES, customerUsers: table }),
    ).rejects.toThrow(
      `The table ${table} was made by an earlier version, without its index byUser: start with a new data folder.`,
    );
    // The tables as this version makes them are taken as they are.
    await expect(ensureTables(client, LOCAL_TABLE_NAMES)).resolves.toBeUndefined();
  });

  it("answers the same through the embedded runtime's cache, across the purge", async () => {
    const users = cachedCustomerUserMap(createCustomerUserMap(dynamo().doc, TABLE));
    await users.put("com.c", "u1", "s1", "2026-11-01T10:00:00.000Z");
    expect(await users.get("com.c", "u1")).toBe("s1");
    await users.deleteInstall("com.c", "s1");
    expect(await users.get("com.c", "u1")).toBeUndefined();
    expect(await users.get("com.c", "u1", PURGED)).toBe("s1");
    // The mark's answer is not kept as the mapping in use.
    expect(await users.get("com.c", "u1")).toBeUndefined();
    await users.put("com.c", "u1", "s2", "2026-11-01T11:00:00.000Z");
    expect(await users.get("com.c", "u1")).toBe("s2");
  });
});
