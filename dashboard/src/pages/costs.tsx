/**
 * The Cost page: what campaigns cost, as the cohorts report's cost, eCPI and ROAS read it. A CSV
 * file of cost rows (the columns of `attribution costs import`) is read in the browser, shown
 * as a preview and uploaded to POST /v1/costs, 1,000 rows a request; the service's refusal is
 * said beside the row it names. Below, the range's stored rows (GET /v1/costs), downloadable as
 * CSV. A viewer sees the rows and their file, and no upload.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { useLocation } from "wouter-preact";
import { ApiError, type CostRow, listCosts, putCosts } from "../api.ts";
import { type Range, RangeForm, rangeProblem, refusalOf } from "../components/date-range.tsx";
import { ErrorText, Page, StatusText, TableScroll } from "../components/page.tsx";
import { csvOf, DownloadCsv, TextTableView } from "../components/text-table.tsx";
import {
  COST_COLUMNS,
  type CostFile,
  type CostFileRow,
  type CostProblem,
  costPages,
  costProblems,
  costRowsProblem,
  MAX_FILE_BYTES,
  problemLine,
  problemText,
  REQUIRED_COLUMNS,
  readCostCsv,
} from "../cost-csv.ts";
import { costRowCounts, costRowsUnconverted, costTable, rowsWord } from "../cost-table.ts";
import { failedUploadWords, mayHaveStored } from "../cost-upload.ts";
import { saveCsv } from "../download.ts";
import { formatCount, todayIn, UNKNOWN } from "../format.ts";
import { useHashQuery } from "../hash-route.ts";
import { forgetReports } from "../report-cache.ts";
import { rangeOf } from "../report-query.ts";
import { appPath, useAppTimeZone, useSession, useViewOnly, useZoneKnown } from "../session.tsx";

/** The preview's first rows; rows the service refused are shown wherever they are. */
const PREVIEW_ROWS = 20;

export function CostPage(props: { appId: string }) {
  const { appId } = props;
  const viewOnly = useViewOnly();
  const [, navigate] = useLocation();
  const query = useHashQuery();
  // Cost rows are of days of the app's time zone, as the reports match them. The rows' answer
  // names no zone, as a report's does: the app list, and its zones, are read again as the page
  // opens, so that a zone changed since (in another tab, through the API) is the one shown.
  const { reloadApps } = useSession();
  useEffect(() => {
    reloadApps().catch(() => undefined);
  }, [reloadApps]);
  const zone = useAppTimeZone(appId);
  const lastDay = todayIn(zone);
  const range = useMemo(() => rangeOf(new URLSearchParams(query), lastDay), [query, lastDay]);
  const chooseRange = (next: Range) =>
    navigate(`${appPath(appId, "cost")}?${new URLSearchParams(next).toString()}`, {
      replace: true,
    });

  const zoneKnown = useZoneKnown();
  const problem = zoneKnown ? rangeProblem(range, lastDay, zone) : null;
  const valid = zoneKnown && problem === null;
  /** The rows shown, with the range they are of. */
  const [shown, setShown] = useState<{ rows: CostRow[]; range: Range } | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** Asked again after an upload. */
  const [stored, setStored] = useState(0);
  const latest = useRef(0);

  useEffect(() => {
    const call = ++latest.current;
    // `stored` changes when rows were stored: the range's rows are read again.
    void stored;
    if (!valid) {
      setShown(null);
      setError(null);
      setLoading(false);
      return;
    }
    setLoading(true);
    setError(null);
    const asked = { from: range.from, to: range.to };
    listCosts(appId, asked.from, asked.to).then(
      (answer) => {
        if (call !== latest.current) return;
        setShown({ rows: answer, range: asked });
        setLoading(false);
      },
      (caught: unknown) => {
        if (call !== latest.current) return;
        setShown(null);
        setError(refusalOf(caught));
        setLoading(false);
      },
    );
  }, [appId, range.from, range.to, valid, stored]);

  return (
    <Page title="Cost" subtitle={appId}>
      <p class="hint">
        What campaigns cost, a row per day, media source and campaign (and ad set, ad and country
        when given), as the Cohorts page's cost, eCPI and ROAS count it. Each amount is converted to
        US dollars at the European Central Bank's rate of its day, or at the fixed rate of a
        currency pegged to the dollar or the euro.
      </p>
      {viewOnly ? null : (
        <CostUpload
          appId={appId}
          range={range}
          onStored={() => {
            forgetReports(appId);
            setStored((count) => count + 1);
          }}
          onShowDays={chooseRange}
          lastDay={lastDay}
        />
      )}
      <RangeForm
        range={range}
        problem={problem}
        lastDay={lastDay}
        zone={zone}
        onChange={chooseRange}
      />
      <div role="status" class="status">
        {loading
          ? "Loading…"
          : shown && valid
            ? `Showing ${shown.range.from} to ${shown.range.to}.`
            : ""}
      </div>
      <ErrorText message={error} />
      {shown && valid ? (
        <CostTable
          appId={appId}
          range={shown.range}
          rows={shown.rows}
          viewOnly={viewOnly}
          busy={loading}
        />
      ) : null}
    </Page>
  );
}

/** What the upload came to: rows stored, or the service's refusal (after pages stored, maybe). */
type Outcome =
  | { kind: "uploading"; from: number; to: number; of: number }
  | { kind: "stored"; accepted: number; replaced: number; days: Range; warnings: string[] }
  | {
      kind: "refused";
      /** Rows stored by the pages before the one refused. */
      accepted: number;
      replaced: number;
      /** The rows of the page refused, by their numbers in the file. */
      from: number;
      to: number;
      problems: CostProblem[];
      more: number;
    }
  /** A request failed with no refusal of its rows: what was, and may have been, stored. */
  | { kind: "failed"; text: string };

/** The service's refusal of rows of the request, named in its detail. */
const isRefusal = (caught: unknown): caught is ApiError =>
  caught instanceof ApiError && caught.status === 422;

/** The earlier of two days (`YYYY-MM-DD`). */
const earlier = (a: string, b: string): string => (a < b ? a : b);

const daysOf = (rows: readonly CostFileRow[]): Range => {
  const days = rows
    .map((row) => row.row.day)
    .filter((day): day is string => typeof day === "string")
    .sort();
  return { from: days[0] ?? "", to: days.at(-1) ?? "" };
};

function CostUpload(props: {
  appId: string;
  range: Range;
  onStored: () => void;
  onShowDays: (range: Range) => void;
  /** Today in the app's zone: the latest day a range may show (a row may be of tomorrow). */
  lastDay: string;
}) {
  const { appId, range, lastDay } = props;
  const [name, setName] = useState<string | null>(null);
  const [file, setFile] = useState<CostFile | null>(null);
  const [fileProblem, setFileProblem] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const summary = useRef<HTMLDivElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  const choose = async (picked: File | undefined) => {
    setOutcome(null);
    setFile(null);
    setFileProblem(null);
    setName(picked?.name ?? null);
    if (!picked) return;
    // Read once and let go: a browser tells no change when the same file is chosen again, and
    // the file corrected after a refusal is chosen again under its name.
    if (fileInput.current) fileInput.current.value = "";
    if (picked.size > MAX_FILE_BYTES) {
      setFileProblem(
        `${picked.name} is ${formatCount(Math.ceil(picked.size / 1024 / 1024))} MB; the page reads files up to ${MAX_FILE_BYTES / 1024 / 1024} MB. The command line's attribution costs import takes larger ones.`,
      );
      return;
    }
    const reading = readCostCsv(await picked.text());
    if (!reading.ok) {
      setFileProblem(reading.problem);
      return;
    }
    // Every row checked before any is sent, so that a file is stored whole or not at all.
    const problem = costRowsProblem(reading.file.rows, new Date());
    if (problem) setFileProblem(problem);
    else setFile(reading.file);
  };

  const upload = async () => {
    if (!file) return;
    // Again at the upload: a day taken when the file was chosen may be over 90 days back now,
    // or today may have begun since.
    const problem = costRowsProblem(file.rows, new Date());
    if (problem) {
      setFile(null);
      setFileProblem(problem);
      fileInput.current?.focus();
      return;
    }
    const pages = costPages(file.rows);
    let accepted = 0;
    let replaced = 0;
    const warnings = new Set<string>();
    for (const page of pages) {
      const first = page[0]?.number ?? 0;
      const last = page.at(-1)?.number ?? 0;
      setOutcome({ kind: "uploading", from: first, to: last, of: file.rows.length });
      try {
        const answer = await putCosts(
          appId,
          page.map((row) => row.row),
        );
        accepted += answer.accepted;
        replaced += answer.replaced;
        for (const warning of answer.warnings) warnings.add(warning);
      } catch (caught) {
        // Rows stored, or maybe stored (the answer lost): the range's rows are read again.
        if (accepted > 0 || mayHaveStored(caught)) props.onStored();
        if (isRefusal(caught)) {
          const { problems, more } = costProblems(caught.detail || caught.error, page);
          setOutcome({
            kind: "refused",
            accepted,
            replaced,
            from: first,
            to: last,
            problems,
            more,
          });
        } else {
          setOutcome({
            kind: "failed",
            text: failedUploadWords(
              { accepted, from: first, to: last, of: file.rows.length },
              caught,
            ),
          });
        }
        // The reason is read out (role=alert); focus goes to the first row refused, or to it.
        requestAnimationFrame(() => {
          const row = document.querySelector<HTMLElement>("[data-refused-row]");
          (row ?? summary.current)?.focus();
        });
        return;
      }
    }
    setOutcome({
      kind: "stored",
      accepted,
      replaced,
      days: daysOf(file.rows),
      warnings: [...warnings],
    });
    props.onStored();
  };

  const problemsByRow = useMemo(() => {
    const byRow = new Map<number, CostProblem[]>();
    if (outcome?.kind !== "refused") return byRow;
    for (const problem of outcome.problems) {
      if (problem.row === null) continue;
      byRow.set(problem.row, [...(byRow.get(problem.row) ?? []), problem]);
    }
    return byRow;
  }, [outcome]);

  const busy = outcome?.kind === "uploading";
  return (
    <section class="card cost-upload" aria-labelledby="cost-upload-heading">
      <h2 id="cost-upload-heading">Upload cost rows</h2>
      <p class="hint">
        A CSV file whose first line names its columns, as the command line's{" "}
        <code>attribution costs import</code> takes it: {REQUIRED_COLUMNS.join(", ")} in every row;{" "}
        {COST_COLUMNS.filter((column) => !REQUIRED_COLUMNS.includes(column)).join(", ")} when known.
        Days of the app's time zone, up to 90 back and none after tomorrow (UTC). A row of the same
        day, media source, campaign, ad set, ad and country as one stored replaces it.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void upload();
        }}
      >
        <div class="field">
          <label for="cost-file">CSV file of cost rows</label>
          <input
            ref={fileInput}
            id="cost-file"
            type="file"
            name="file"
            accept=".csv,text/csv"
            disabled={busy}
            aria-describedby={fileProblem ? "cost-file-error" : undefined}
            aria-invalid={fileProblem ? "true" : undefined}
            onChange={(event) => void choose(event.currentTarget.files?.[0])}
          />
          <span id="cost-file-error" class="field-error" role="alert">
            {fileProblem}
          </span>
        </div>
        {file && name ? (
          <>
            <CostPreview
              name={name}
              file={file}
              problemsByRow={problemsByRow}
              refusedPage={outcome?.kind === "refused" ? outcome : null}
            />
            <div class="actions">
              <button type="submit" disabled={busy}>
                Upload {rowsWord(file.rows.length)}
              </button>
            </div>
          </>
        ) : null}
      </form>
      <StatusText
        message={
          outcome?.kind === "uploading"
            ? `Uploading rows ${formatCount(outcome.from)} to ${formatCount(outcome.to)} of ${formatCount(outcome.of)}…`
            : outcome?.kind === "stored"
              ? `${rowsWord(outcome.accepted)} stored (${formatCount(outcome.replaced)} replaced an earlier one).`
              : null
        }
      />
      {outcome?.kind === "stored" && outcome.warnings.length > 0 ? (
        <ul class="warning" data-testid="cost-warnings">
          {outcome.warnings.map((warning) => (
            <li key={warning}>{warning}</li>
          ))}
        </ul>
      ) : null}
      {outcome?.kind === "stored" &&
      outcome.days.from <= lastDay &&
      (outcome.days.from < range.from || earlier(outcome.days.to, lastDay) > range.to) ? (
        <p class="hint">
          Their days run from {outcome.days.from} to {outcome.days.to}, not all in the range shown
          below.{" "}
          {outcome.days.to > lastDay
            ? `Those after today (${lastDay}) are shown from their day on. `
            : null}
          <button
            type="button"
            class="secondary"
            onClick={() => {
              props.onShowDays({ from: outcome.days.from, to: earlier(outcome.days.to, lastDay) });
              // The button goes once its days are shown: focus to the range that shows them.
              document.querySelector<HTMLInputElement>('input[name="from"]')?.focus();
            }}
          >
            Show {outcome.days.from} to {earlier(outcome.days.to, lastDay)}
          </button>
        </p>
      ) : null}
      <div ref={summary} tabIndex={-1} class="refusal" data-testid="cost-refusal">
        <ErrorText
          message={
            outcome?.kind === "refused"
              ? refusalWords(outcome, file?.rows ?? [])
              : outcome?.kind === "failed"
                ? outcome.text
                : null
          }
        />
      </div>
    </section>
  );
}

/** The refusal as a sentence: what was stored (nothing, or the pages before), and each problem. */
const refusalWords = (
  outcome: Extract<Outcome, { kind: "refused" }>,
  rows: readonly CostFileRow[],
): string => {
  const listed = outcome.problems.map((problem) => problemLine(problem, rows));
  const more = outcome.more > 0 ? [`and ${formatCount(outcome.more)} more`] : [];
  const problems = `${[...listed, ...more].join("; ")}.`;
  if (outcome.accepted === 0)
    return `Nothing was stored. The service refused the file: ${problems}`;
  return `Rows 1 to ${formatCount(outcome.from - 1)} were stored (${formatCount(outcome.replaced)} replaced an earlier one); the service refused rows ${formatCount(outcome.from)} to ${formatCount(outcome.to)} and nothing after them was sent: ${problems} Fix those rows and upload the whole file again: a row stored again replaces itself.`;
};

function CostPreview(props: {
  name: string;
  file: CostFile;
  problemsByRow: Map<number, CostProblem[]>;
  refusedPage: { from: number; to: number } | null;
}) {
  const { file, problemsByRow } = props;
  const shown = file.rows.filter(
    (row) => row.number <= PREVIEW_ROWS || problemsByRow.has(row.number),
  );
  const hidden = file.rows.length - shown.length;
  const span = file.columns.length + 1;
  return (
    <div class="cost-preview">
      <h3 id="cost-preview-heading">
        Preview: {rowsWord(file.rows.length)} of {props.name}
      </h3>
      <TableScroll label="Cost rows preview">
        <table aria-labelledby="cost-preview-heading" data-testid="cost-preview">
          <thead>
            <tr>
              <th scope="col" class="num">
                Row
              </th>
              {file.columns.map((column) => (
                <th key={column} scope="col">
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.flatMap((row) => {
              const problems = problemsByRow.get(row.number) ?? [];
              const refused = new Set(problems.map((problem) => problem.column));
              const problemId = `cost-row-${row.number}-problem`;
              const cells = (
                <tr
                  key={row.number}
                  data-row={row.number}
                  class={problems.length > 0 ? "refused" : undefined}
                >
                  <th
                    scope="row"
                    class="num"
                    title={`Line ${row.line} of the file`}
                    tabIndex={problems.length > 0 ? -1 : undefined}
                    aria-describedby={problems.length > 0 ? problemId : undefined}
                    {...(problems.length > 0 ? { "data-refused-row": "" } : {})}
                  >
                    {formatCount(row.number)}
                  </th>
                  {file.columns.map((column) => (
                    <td
                      key={column}
                      class={refused.has(column) ? "refused-cell" : undefined}
                      {...(refused.has(column) ? { "data-refused": column } : {})}
                    >
                      {row.cells[column] ?? ""}
                    </td>
                  ))}
                </tr>
              );
              if (problems.length === 0) return [cells];
              return [
                cells,
                <tr key={`${row.number}-problem`} class="row-problem">
                  <td colSpan={span}>
                    <span id={problemId} class="field-error" data-testid="row-problem">
                      {problems.map((problem) => problemText(problem)).join("; ")}
                    </span>
                  </td>
                </tr>,
              ];
            })}
          </tbody>
        </table>
      </TableScroll>
      {hidden > 0 ? (
        <p class="hint">
          The first {formatCount(PREVIEW_ROWS)} rows
          {problemsByRow.size > 0 ? " and those refused" : ""}; {rowsWord(hidden)} more go with
          them.
        </p>
      ) : null}
    </div>
  );
}

function CostTable(props: {
  appId: string;
  range: Range;
  rows: CostRow[];
  viewOnly: boolean;
  busy: boolean;
}) {
  const { appId, range, rows } = props;
  const table = useMemo(() => costTable(rows), [rows]);
  const counts = useMemo(() => costRowCounts(rows), [rows]);
  const unconverted = useMemo(() => costRowsUnconverted(rows), [rows]);
  const replaced = rows.filter((row) => counts.get(row) === "replaced").length;
  const takenBack = rows.filter((row) => counts.get(row) === "taken back").length;
  return (
    <section class="card" aria-labelledby="cost-rows-heading" aria-busy={props.busy}>
      <div class="section-head">
        <h2 id="cost-rows-heading">Cost rows</h2>
        {rows.length > 0 ? (
          <DownloadCsv
            of="the cost rows"
            onDownload={() =>
              saveCsv(
                csvOf(table),
                `${appId.replace(/[^A-Za-z0-9._-]/g, "_")}_cost_${range.from}_${range.to}.csv`,
              )
            }
          />
        ) : null}
      </div>
      {rows.length === 0 ? (
        <p class="empty" data-testid="cost-empty">
          No cost rows from {range.from} to {range.to}.{" "}
          {props.viewOnly
            ? "They come from the app's owners: a CSV uploaded on this page, POST /v1/costs, or the command line's attribution costs import."
            : "Upload a CSV file above, or send them with POST /v1/costs or the command line's attribution costs import."}
        </p>
      ) : (
        <>
          <TextTableView table={table} label="Cost rows" testId="cost-rows" />
          <p class="hint">
            By day; a row names its media source and campaign, and an ad set, an ad and a country
            when it is theirs alone. The total is of the rows the cohorts' cost counts; its amount
            in US dollars is that of those converted.
          </p>
          {replaced + takenBack > 0 ? (
            <p class="hint" data-testid="cost-rows-not-counted">
              {replaced > 0
                ? `${rowsWord(replaced)} ${replaced === 1 ? "is" : "are"} marked “replaced”: a later row of the same day, media source, campaign, ad set, ad and country, its names spelt otherwise (in another case or Unicode form), stands for ${replaced === 1 ? "it" : "them"}. `
                : ""}
              {takenBack > 0
                ? `${rowsWord(takenBack)} ${takenBack === 1 ? "is" : "are"} marked “taken back”: the latest row of ${takenBack === 1 ? "its" : "their"} spend has amount 0. `
                : ""}
              The reports, and the total, leave {replaced + takenBack === 1 ? "it" : "them"} out.
            </p>
          ) : null}
          {unconverted > 0 ? (
            <p class="warning" data-testid="cost-rows-unconverted">
              {unconverted === 1
                ? `1 row shows ${UNKNOWN} in US dollars: no rate of its day converts its currency, so the cohorts' cost leaves it out.`
                : `${formatCount(unconverted)} rows show ${UNKNOWN} in US dollars: no rate of their day converts their currency, so the cohorts' cost leaves them out.`}
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}
