import { useRef, useState } from "preact/hooks";
import {
  downloadExport,
  EXPORT_FORMATS,
  EXPORT_MAX_LIMIT,
  type ExportDownload,
  type ExportFormat,
  errorMessage,
} from "../api.ts";
import { ErrorText, Page, StatusText } from "../components/page.tsx";
import { saveFile } from "../download.ts";
import { addDays, dayStartSeconds, formatCount, isDay, today } from "../format.ts";

const FORMAT_NAMES: Record<ExportFormat, string> = {
  json: "JSON",
  ndjson: "NDJSON (one JSON object a line)",
  csv: "CSV",
  tsv: "TSV",
  xml: "XML",
  xlsx: "Excel (xlsx)",
  parquet: "Parquet",
};

/** Where the export is: the next page to ask for, and the snapshot the first page took. */
interface Paging {
  offset: number;
  snapshot: string | null;
  /** Whether the last page was full, so another may follow. */
  more: boolean;
  last: { fileName: string; first: number; rows: number | null } | null;
}

const START: Paging = { offset: 0, snapshot: null, more: false, last: null };

/** How many events a downloaded page holds, when that can be told. */
const rowsOf = async (
  download: ExportDownload,
  format: ExportFormat,
  offset: number,
  limit: number,
): Promise<number | null> => {
  if (download.snapshotRows !== null) {
    return Math.max(0, Math.min(limit, download.snapshotRows - offset));
  }
  const named = download.fileName ? /_rows-(\d+)-(\d+)\./.exec(download.fileName) : null;
  if (named?.[1] && named[2]) return Number(named[2]) - Number(named[1]) + 1;
  if (download.fileName && /_rows-none-after-\d+\./.test(download.fileName)) return 0;
  if (format === "json") {
    try {
      const page = JSON.parse(await download.blob.text()) as {
        data?: unknown[];
        total_count?: number;
      };
      return page.total_count ?? page.data?.length ?? null;
    } catch {
      return null;
    }
  }
  if (format === "ndjson" || format === "csv" || format === "tsv") {
    const lines = (await download.blob.text()).split("\n").filter((line) => line.trim() !== "");
    return format === "ndjson" ? lines.length : Math.max(0, lines.length - 1);
  }
  if (format === "xml") return ((await download.blob.text()).match(/<event>/g) ?? []).length;
  return null;
};

/** What the last download was, and whether another page may follow. */
const statusOf = (paging: Paging): string | null => {
  const { last, more } = paging;
  if (!last) return null;
  const rows =
    last.rows === null
      ? ""
      : last.rows === 0
        ? ": no events"
        : ` (events ${formatCount(last.first)} to ${formatCount(last.first + last.rows - 1)})`;
  const next = more ? " Another page may follow: Next page." : " That was the last page.";
  return `Downloaded ${last.fileName}${rows}.${next}`;
};

export function ExportPage(props: { appId: string }) {
  const { appId } = props;
  const [start, setStart] = useState(() => addDays(today(), -7));
  const [format, setFormat] = useState<ExportFormat>("csv");
  const [limitText, setLimitText] = useState("1000");
  const [paging, setPaging] = useState<Paging>(START);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const limit = Number(limitText);
  const validLimit = Number.isInteger(limit) && limit >= 1 && limit <= EXPORT_MAX_LIMIT;
  const validStart = isDay(start) && start <= today();

  /**
   * A change to the builder starts the export over from its first page; a page asked before it
   * does not then offer the next one of the export it no longer is.
   */
  const builder = useRef(0);
  const change = (apply: () => void) => {
    apply();
    builder.current += 1;
    setPaging(START);
  };

  const download = async (offset: number, snapshot: string | null) => {
    if (!validStart) {
      setError("Choose a start date that is not in the future.");
      return;
    }
    if (!validLimit) {
      setError(`The page size is a whole number from 1 to ${formatCount(EXPORT_MAX_LIMIT)}.`);
      return;
    }
    setBusy(true);
    setError(null);
    const asked = builder.current;
    try {
      const answer = await downloadExport({
        appId,
        timestamp: dayStartSeconds(start),
        format,
        limit,
        offset,
        snapshot: snapshot ?? undefined,
      });
      const rows = await rowsOf(answer, format, offset, limit);
      const fileName =
        answer.fileName ??
        `${appId}_events_rows-${offset + 1}-${offset + (rows ?? limit)}.${format}`;
      saveFile(answer.blob, fileName);
      if (asked !== builder.current) return;
      setPaging({
        offset: offset + limit,
        snapshot: answer.snapshot ?? snapshot,
        // Unknown row count: another page may follow; an empty one says the end.
        more: rows === null ? true : rows === limit,
        last: { fileName, first: offset + 1, rows },
      });
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Page title="Export" subtitle={appId}>
      <form
        class="card stack"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          download(0, null);
        }}
      >
        <p class="hint">
          Every attributed event from the start date (00:00 UTC) to now, a page at a time.
        </p>
        <div class="form-grid">
          <label class="field">
            <span>Start date</span>
            <input
              type="date"
              name="start"
              required
              max={today()}
              value={start}
              onChange={(event) => change(() => setStart(event.currentTarget.value))}
            />
          </label>
          <label class="field">
            <span>Format</span>
            <select
              name="format"
              value={format}
              onChange={(event) =>
                change(() => setFormat(event.currentTarget.value as ExportFormat))
              }
            >
              {EXPORT_FORMATS.map((name) => (
                <option key={name} value={name}>
                  {FORMAT_NAMES[name]}
                </option>
              ))}
            </select>
          </label>
          <label class="field">
            <span>Page size (events)</span>
            <input
              type="number"
              name="limit"
              min={1}
              max={EXPORT_MAX_LIMIT}
              step={1}
              inputMode="numeric"
              required
              value={limitText}
              onInput={(event) => change(() => setLimitText(event.currentTarget.value))}
            />
          </label>
        </div>
        <div class="actions">
          <button type="submit" disabled={busy}>
            Download
          </button>
          {paging.more ? (
            <button
              type="button"
              class="secondary"
              disabled={busy}
              onClick={() => download(paging.offset, paging.snapshot)}
            >
              Next page
            </button>
          ) : null}
        </div>
        <ErrorText message={error} />
        <StatusText message={busy ? "Preparing the page…" : statusOf(paging)} />
      </form>
    </Page>
  );
}
