import {
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  type ChartType,
  DoughnutController,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from "chart.js";
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { PALETTE } from "../colours.ts";
import { DefinitionText, InfoButton } from "./definition.tsx";

Chart.register(
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  DoughnutController,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
);
Chart.defaults.font.family = getComputedStyle(document.documentElement).fontFamily || "system-ui";
Chart.defaults.color = "#374151";
Chart.defaults.maintainAspectRatio = false;
if (matchMedia("(prefers-reduced-motion: reduce)").matches) Chart.defaults.animation = false;

/** A series' colour, in turn (the organic series has its own: colours.ts). */
export const seriesColour = (index: number): string => PALETTE[index % PALETTE.length] ?? "#2563eb";

/** A chart drawn on a canvas that assistive technology skips: its figure holds the text. */
export function ChartCanvas<T extends ChartType>(props: { config: ChartConfiguration<T> }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, props.config);
    return () => chart.destroy();
  }, [props.config]);
  return (
    <div class="chart-box" aria-hidden="true">
      <canvas ref={canvas} />
    </div>
  );
}

export interface FigureTable {
  /** The first column's header (e.g. "Date"), then one per series. */
  columns: string[];
  rows: (string | number)[][];
}

/**
 * A chart with its caption and, for assistive technology, the same figures as a visually
 * hidden table under the same caption.
 */
export function ChartFigure<T extends ChartType>(props: {
  caption: string;
  config: ChartConfiguration<T>;
  table: FigureTable;
  empty?: boolean;
  /** What the chart counts, one click away from its caption. */
  definition?: { id: string; text: ComponentChildren };
  children?: ComponentChildren;
}) {
  const [open, setOpen] = useState(false);
  const { definition } = props;
  const captionId = definition ? `${definition.id}-caption` : undefined;
  return (
    // Named by the caption's words alone, not by the definition's button beside them.
    <figure class="chart card" aria-labelledby={captionId}>
      <figcaption class="figure-head">
        <span id={captionId}>{props.caption}</span>
        {definition ? (
          <InfoButton
            controls={definition.id}
            term={props.caption}
            open={open}
            onToggle={() => setOpen((was) => !was)}
          />
        ) : null}
      </figcaption>
      {definition ? (
        <DefinitionText id={definition.id} open={open}>
          {definition.text}
        </DefinitionText>
      ) : null}
      {props.empty ? (
        <p class="empty">No data in this range.</p>
      ) : (
        <>
          <ChartCanvas config={props.config} />
          <div class="visually-hidden">
            <table>
              <caption>{props.caption}</caption>
              <thead>
                <tr>
                  {props.table.columns.map((column) => (
                    <th key={column} scope="col">
                      {column}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {props.table.rows.map((row) => (
                  <tr key={String(row[0])}>
                    {row.map((cell, index) =>
                      index === 0 ? (
                        <th key={index} scope="row">
                          {cell}
                        </th>
                      ) : (
                        <td key={index}>{cell}</td>
                      ),
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {props.children}
    </figure>
  );
}
