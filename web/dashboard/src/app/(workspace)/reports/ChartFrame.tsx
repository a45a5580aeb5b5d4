"use client";

// A chart at the section's full width and a fixed height (ResponsiveContainer needs one).
// The chart itself is one image to assistive technology, named by its one-line summary; its
// numbers are in the table that goes with it.

import type { ReactElement } from "react";
import { ResponsiveContainer } from "recharts";
import { CHART_HEIGHT } from "./chartStyle";
import styles from "./reports.module.css";

export function ChartFrame({ height = CHART_HEIGHT, children }: { height?: number; children: ReactElement }) {
  return (
    <div className={styles.chart}>
      <ResponsiveContainer width="100%" height={height}>
        {children}
      </ResponsiveContainer>
    </div>
  );
}
