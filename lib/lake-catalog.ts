/**
 * The lake's catalog: the Glue database and one Glue table per lake table, derived from
 * src/lake/lake-tables.ts, the one Parquet contract, so Firehose's conversion, Athena and the
 * embedded DuckDB views cannot drift apart; and the table of the lists of installs an export
 * leaves out. Partition projection computes partitions from rules instead of listing them.
 */
import { Names, Stack } from "aws-cdk-lib";
import { CfnDatabase, CfnTable } from "aws-cdk-lib/aws-glue";
import type { IRole } from "aws-cdk-lib/aws-iam";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { IBucket } from "aws-cdk-lib/aws-s3";
import { Construct } from "constructs";
import { EXCLUSIONS_TABLE } from "../src/adapters/athena/exclusions.ts";
import {
  LAKE_FIRST_DAY,
  LAKE_TABLES,
  type LakeColumn,
  type LakeTable,
  type LakeTableName,
  type LakeType,
  PARTITION_KEYS,
  perLakeTable,
} from "../src/lake/lake-tables.ts";
import { pascal } from "./naming.ts";

const GLUE_TYPES: Record<LakeType, string> = {
  string: "string",
  int: "int",
  double: "double",
  timestamp: "timestamp",
};

/** Glue columns of a lake column list, in order. */
export const glueColumns = (columns: readonly LakeColumn[]): CfnTable.ColumnProperty[] =>
  columns.map((c) => ({ name: c.name, type: GLUE_TYPES[c.type] }));

/**
 * Partition projection per partition key: Athena computes partitions from these rules instead
 * of listing them in Glue, so new app/day folders are queryable the moment Firehose writes
 * them, with no crawler and no MSCK REPAIR. `app_id` is injected: every query names its app,
 * which is also the tenant boundary.
 */
const PROJECTION: Record<string, Record<string, string>> = {
  app_id: { type: "injected" },
  dt: {
    type: "date",
    format: "yyyy-MM-dd",
    // Ingestion accepts event times up to 24 h ahead of the clock, so their day is projected too.
    range: `${LAKE_FIRST_DAY},NOW+1DAYS`,
    interval: "1",
    "interval.unit": "DAYS",
  },
};

/** `app_id=${app_id}/dt=${dt}/`: Hive layout in PARTITION_KEYS order, as Firehose writes it. */
export const partitionPathTemplate = (): string =>
  `${PARTITION_KEYS.map((k) => `${k.name}=\${${k.name}}`).join("/")}/`;

export const projectionParameters = (location: string): Record<string, string> => {
  const parameters: Record<string, string> = {
    "projection.enabled": "true",
    "storage.location.template": `${location}${partitionPathTemplate()}`,
  };
  for (const key of PARTITION_KEYS) {
    const rules = PROJECTION[key.name];
    if (!rules) throw new Error(`No partition projection rule for partition key ${key.name}`);
    for (const [name, value] of Object.entries(rules)) {
      parameters[`projection.${key.name}.${name}`] = value;
    }
  }
  return parameters;
};

/** How Athena reads a table's objects: the lake's Parquet, or text with one value a line. */
const STORAGE_FORMATS = {
  parquet: {
    inputFormat: "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
    outputFormat: "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
    serde: "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
  },
  text: {
    inputFormat: "org.apache.hadoop.mapred.TextInputFormat",
    outputFormat: "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
    serde: "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
  },
} as const;

/** Where the catalog's tables are: the lake's buckets (./lake.ts), which own the catalog. */
export interface LakeStorage {
  tableLocation(table: LakeTableName): string;
  readonly resultsBucket: IBucket;
}

export class LakeCatalog extends Construct {
  readonly database: CfnDatabase;
  readonly databaseName: string;
  readonly tables: Readonly<Record<LakeTableName, CfnTable>>;
  /** The lists of installs an export leaves out, in the results bucket (exclusions.ts). */
  readonly exclusionsTable: CfnTable;

  constructor(
    scope: Construct,
    id: string,
    private readonly storage: LakeStorage,
  ) {
    super(scope, id);
    const account = Stack.of(this).account;
    // Athena wants lower-case names made of letters, digits and underscores.
    this.databaseName = Names.uniqueResourceName(this, { maxLength: 64, separator: "_" })
      .toLowerCase()
      .replace(/[^a-z0-9_]/g, "_");
    this.database = new CfnDatabase(this, "Database", {
      catalogId: account,
      databaseInput: {
        name: this.databaseName,
        description: "Attribution lake: Parquet written by Firehose, read by Athena.",
      },
    });

    this.tables = perLakeTable((table) => this.glueTable(table));
    this.exclusionsTable = this.exclusionListsTable();
  }

  /** The Glue catalog, database and lake table ARNs (Glue checks all three). */
  arns(
    tables: readonly (LakeTableName | typeof EXCLUSIONS_TABLE.name)[] = LAKE_TABLES.map(
      (t) => t.name,
    ),
  ): string[] {
    const stack = Stack.of(this);
    const glueArn = (resource: string, resourceName?: string): string =>
      stack.formatArn({ service: "glue", resource, resourceName });
    return [
      glueArn("catalog"),
      glueArn("database", this.databaseName),
      ...tables.map((t) => glueArn("table", `${this.databaseName}/${t}`)),
    ];
  }

  /** Read the catalog entries an export query uses, as Athena planning it does. */
  grantRead(role: IRole, tables: readonly LakeTable<LakeTableName>[]): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["glue:GetDatabase", "glue:GetTable", "glue:GetTables"],
        resources: this.arns([...tables.map((t) => t.name), EXCLUSIONS_TABLE.name]),
      }),
    );
  }

  private glueTable(table: LakeTable<LakeTableName>): CfnTable {
    const location = this.storage.tableLocation(table.name);
    return this.externalTable(`${pascal(table.name)}Table`, {
      name: table.name,
      location,
      format: "parquet",
      parameters: {
        classification: "parquet",
        "parquet.compression": "SNAPPY",
        ...projectionParameters(location),
      },
      partitionKeys: glueColumns(PARTITION_KEYS),
      columns: glueColumns(table.columns),
    });
  }

  /**
   * One line per service id, in text objects under `exclusions/<list>/` of the results bucket.
   * The list is an injected partition: a query names the one it reads, and Athena reads no
   * other.
   */
  private exclusionListsTable(): CfnTable {
    const { name, prefix, partitionKey, column } = EXCLUSIONS_TABLE;
    const location = `s3://${this.storage.resultsBucket.bucketName}/${prefix}`;
    return this.externalTable("ExclusionListsTable", {
      name,
      location,
      format: "text",
      parameters: {
        classification: "csv",
        "projection.enabled": "true",
        [`projection.${partitionKey}.type`]: "injected",
        "storage.location.template": `${location}\${${partitionKey}}/`,
      },
      partitionKeys: [{ name: partitionKey, type: "string" }],
      columns: [{ name: column, type: "string" }],
    });
  }

  private externalTable(
    id: string,
    table: {
      name: string;
      location: string;
      format: keyof typeof STORAGE_FORMATS;
      parameters: Record<string, string>;
      partitionKeys: CfnTable.ColumnProperty[];
      columns: CfnTable.ColumnProperty[];
    },
  ): CfnTable {
    const format = STORAGE_FORMATS[table.format];
    const glueTable = new CfnTable(this, id, {
      catalogId: Stack.of(this).account,
      databaseName: this.databaseName,
      tableInput: {
        name: table.name,
        tableType: "EXTERNAL_TABLE",
        parameters: { EXTERNAL: "TRUE", ...table.parameters },
        partitionKeys: table.partitionKeys,
        storageDescriptor: {
          columns: table.columns,
          location: table.location,
          inputFormat: format.inputFormat,
          outputFormat: format.outputFormat,
          serdeInfo: {
            serializationLibrary: format.serde,
            parameters: { "serialization.format": "1" },
          },
          compressed: false,
          storedAsSubDirectories: false,
        },
      },
    });
    glueTable.addResourceDependency(this.database);
    return glueTable;
  }
}
