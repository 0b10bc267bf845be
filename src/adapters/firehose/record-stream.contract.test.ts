/**
 * The record stream contract (../contracts/record-stream.test-support.ts) over Firehose, as
 * moto's server answers its API (test/local-aws/moto.ts): records put by the Firehose stream,
 * read back from the objects the delivery stream wrote to its S3 bucket. moto writes each call's
 * records as they come, with no buffering, dynamic partitioning or Parquet conversion, so what
 * is read back is the JSON lines Firehose's conversion would read.
 */
import { randomUUID } from "node:crypto";
import { DeleteDeliveryStreamCommand, FirehoseClient } from "@aws-sdk/client-firehose";
import { GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect } from "vitest";
import {
  type MotoServer,
  motoClientConfig,
  motoDisabled,
  motoStreamIntoBucket,
  reportNoMoto,
  startMoto,
} from "../../../test/local-aws/moto.ts";
import { type LakeRecord, lakeDay, PARTITION_DAY_KEY } from "../../lake/lake-tables.ts";
import { describeRecordStreamContract } from "../contracts/record-stream.test-support.ts";
import { createFirehoseStream } from "./record-stream.ts";

reportNoMoto(
  "the record stream contract over Firehose (src/adapters/firehose/record-stream.contract.test.ts)",
);

describe.skipIf(motoDisabled)("Firehose", () => {
  let moto: MotoServer;
  let firehose: FirehoseClient;
  let s3: S3Client;

  beforeAll(async () => {
    moto = await startMoto();
    firehose = new FirehoseClient(motoClientConfig(moto));
    s3 = new S3Client(motoClientConfig(moto));
  });
  afterAll(async () => {
    firehose?.destroy();
    s3?.destroy();
    await moto?.stop();
  });

  describeRecordStreamContract("Firehose to S3", async (table) => {
    const name = `contract-${randomUUID()}`;
    await motoStreamIntoBucket(
      { s3, firehose },
      { bucket: name, stream: name, prefix: `${table.name}/` },
    );
    return {
      stream: createFirehoseStream({ firehose, streamName: name, table }),
      async delivered() {
        const records: LakeRecord[] = [];
        let token: string | undefined;
        do {
          const listed = await s3.send(
            new ListObjectsV2Command({ Bucket: name, ContinuationToken: token }),
          );
          for (const object of listed.Contents ?? []) {
            const got = await s3.send(new GetObjectCommand({ Bucket: name, Key: object.Key }));
            const text = (await got.Body?.transformToString("utf8")) ?? "";
            for (const line of text.split("\n")) {
              if (line === "") continue;
              // The partition day the stream's dynamic partitioning reads, which its Parquet
              // conversion leaves out (not a column): every record names it.
              const { [PARTITION_DAY_KEY]: day, ...record } = JSON.parse(line) as LakeRecord;
              expect(day).toBe(lakeDay(table, record as LakeRecord));
              records.push(record as LakeRecord);
            }
          }
          token = listed.NextContinuationToken;
        } while (token);
        return records;
      },
      async close() {
        await firehose.send(new DeleteDeliveryStreamCommand({ DeliveryStreamName: name }));
      },
    };
  });
});
