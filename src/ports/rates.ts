/** Where the service keeps its rate table (eurofxref-hist.csv's layout): an S3 object on AWS. */
export interface RatesTable {
  /** The table's text; undefined while none is stored. */
  read(): Promise<string | undefined>;
  write(csvText: string): Promise<void>;
}
