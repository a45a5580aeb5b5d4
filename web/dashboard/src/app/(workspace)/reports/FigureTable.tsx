"use client";

// A chart's numbers as a table (its accessible alternative, and what people copy from): the
// first column names the row, numbers align right, and an optional total row closes it. Wide
// tables scroll sideways on narrow screens; the scrolling box is focusable for the keyboard.

import { type ReactNode, useId } from "react";
import styles from "./reports.module.css";

export interface Column<R> {
  header: string;
  cell: (row: R) => ReactNode;
  numeric?: boolean;
}

export function FigureTable<R>({
  caption,
  columns,
  rows,
  rowKey,
  total,
}: {
  caption: string;
  columns: readonly Column<R>[];
  rows: readonly R[];
  rowKey: (row: R) => string;
  /** The total row's cells, the first being its name ("Total"). */
  total?: readonly ReactNode[];
}) {
  const captionId = useId();
  const numeric = (index: number) => (columns[index]?.numeric ? styles.num : undefined);
  return (
    <div className="table-scroll" role="region" aria-labelledby={captionId} tabIndex={0}>
      <table className={`table ${styles.figures}`}>
        <caption id={captionId} className="visually-hidden">
          {caption}
        </caption>
        <thead>
          <tr>
            {columns.map((column, index) => (
              <th key={column.header} scope="col" className={numeric(index)}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((column, index) =>
                index === 0 ? (
                  <th key={column.header} scope="row">
                    {column.cell(row)}
                  </th>
                ) : (
                  <td key={column.header} className={numeric(index)}>
                    {column.cell(row)}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
        {total ? (
          <tfoot>
            <tr>
              {total.map((cell, index) =>
                index === 0 ? (
                  <th key={index} scope="row">
                    {cell}
                  </th>
                ) : (
                  <td key={index} className={numeric(index)}>
                    {cell}
                  </td>
                ),
              )}
            </tr>
          </tfoot>
        ) : null}
      </table>
    </div>
  );
}

/** A table folded under "Show table", for charts whose periods make it long. */
export function TableDetails({ caption, children }: { caption: string; children: ReactNode }) {
  return (
    <details className={styles.tableDetails}>
      <summary>
        Show table<span className="visually-hidden">: {caption}</span>
      </summary>
      {children}
    </details>
  );
}
