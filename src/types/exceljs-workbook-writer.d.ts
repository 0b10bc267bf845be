// exceljs's streaming writer on its own: importing the package's main module bundles its
// readers and every other format too (about 600 KB more in the export Lambda).
declare module "exceljs/lib/stream/xlsx/workbook-writer.js" {
  import type { stream } from "exceljs";

  const WorkbookWriter: typeof stream.xlsx.WorkbookWriter;
  export default WorkbookWriter;
}
