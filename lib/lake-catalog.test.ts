import type { Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { LAKE_TABLES, type LakeType, PARTITION_KEYS } from "../src/lake/lake-tables.ts";
import { Lake } from "./lake.ts";
import { propertiesOf, testStack } from "./stack.test-support.ts";

// Spelled out again here, so a wrong mapping in lake-catalog.ts is not also the expectation.
const GLUE_TYPE: Record<LakeType, string> = {
  string: "string",
  int: "int",
  double: "double",
  timestamp: "timestamp",
};

let stack: Stack;
let lake: Lake;
let template: Template;

beforeAll(() => {
  stack = testStack();
  lake = new Lake(stack, "Lake");
  template = Template.fromStack(stack);
});

describe("Glue catalog", () => {
  it("names the database the way Athena accepts", () => {
    expect(lake.catalog.databaseName).toMatch(/^[a-z0-9_]{1,64}$/);
    template.hasResourceProperties("AWS::Glue::Database", {
      DatabaseInput: { Name: lake.catalog.databaseName },
    });
  });

  describe.each(LAKE_TABLES.map((t) => [t.name, t] as const))("table %s", (name, table) => {
    const tableInput = () => {
      const found = Object.values(
        template.findResources("AWS::Glue::Table", {
          Properties: { TableInput: { Name: name } },
        }),
      );
      expect(found).toHaveLength(1);
      const input = propertiesOf(found[0]).TableInput;
      if (typeof input !== "object" || input === null) throw new Error("no TableInput");
      return input;
    };

    it("has exactly the columns of src/lake/lake-tables.ts, in order", () => {
      expect(tableInput()).toMatchObject({
        StorageDescriptor: {
          Columns: table.columns.map((c) => ({ Name: c.name, Type: GLUE_TYPE[c.type] })),
        },
      });
    });

    it("is partitioned by the lake's partition keys, which are not data columns", () => {
      expect(tableInput()).toMatchObject({
        PartitionKeys: PARTITION_KEYS.map((k) => ({ Name: k.name, Type: GLUE_TYPE[k.type] })),
      });
      const columns = new Set(table.columns.map((c) => c.name));
      for (const key of PARTITION_KEYS) expect(columns.has(key.name)).toBe(false);
    });

    it("reads Parquet", () => {
      expect(tableInput()).toMatchObject({
        TableType: "EXTERNAL_TABLE",
        StorageDescriptor: {
          InputFormat: "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
          OutputFormat: "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
          SerdeInfo: {
            SerializationLibrary: "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
          },
          Location: stack.resolve(`s3://${lake.bucket.bucketName}/${name}/`),
        },
      });
    });

    it("projects partitions: app_id injected, dt a daily date", () => {
      expect(tableInput()).toMatchObject({
        Parameters: {
          classification: "parquet",
          "projection.enabled": "true",
          "projection.app_id.type": "injected",
          "projection.dt.type": "date",
          "projection.dt.format": "yyyy-MM-dd",
          "projection.dt.range": "2020-01-01,NOW+1DAYS",
          "projection.dt.interval": "1",
          "projection.dt.interval.unit": "DAYS",
          "storage.location.template": stack.resolve(
            `s3://${lake.bucket.bucketName}/${name}/app_id=\${app_id}/dt=\${dt}/`,
          ),
        },
      });
    });
  });

  it("reads the lists of installs an export leaves out, one list a query, from the results bucket", () => {
    const found = Object.values(
      template.findResources("AWS::Glue::Table", {
        Properties: { TableInput: { Name: "export_exclusions" } },
      }),
    );
    expect(found).toHaveLength(1);
    const location = `s3://${lake.resultsBucket.bucketName}/exclusions/`;
    expect(propertiesOf(found[0])).toMatchObject({
      DatabaseName: lake.catalog.databaseName,
      TableInput: {
        TableType: "EXTERNAL_TABLE",
        PartitionKeys: [{ Name: "list", Type: "string" }],
        Parameters: {
          "projection.enabled": "true",
          "projection.list.type": "injected",
          "storage.location.template": stack.resolve(`${location}\${list}/`),
        },
        StorageDescriptor: {
          Columns: [{ Name: "service_id", Type: "string" }],
          Location: stack.resolve(location),
          InputFormat: "org.apache.hadoop.mapred.TextInputFormat",
          SerdeInfo: {
            SerializationLibrary: "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
          },
        },
      },
    });
  });
});
