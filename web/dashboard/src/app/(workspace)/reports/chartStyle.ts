// The charts' look, shared by every section. Each series has its own colour and its own line
// pattern, and the legend names it: colour never carries a meaning alone. The colours keep a
// 4.5:1 contrast on the panel's white, as the legend's text is written in them.

export const CHART_HEIGHT = 260;

/** Axis labels: the muted text colour. */
export const AXIS_TICK = { fontSize: 12, fill: "#5b6474" } as const;

export const GRID_STROKE = "#d5d9e0";

export interface SeriesStyle {
  color: string;
  /** An SVG dash pattern; none for a solid line. */
  dash?: string;
}

export const SERIES = {
  created: { color: "#1d4ed8" },
  resolved: { color: "#067647", dash: "6 3" },
  reopened: { color: "#b42318", dash: "2 3" },
  median: { color: "#1d4ed8" },
  p90: { color: "#9a3412", dash: "6 3" },
  score: { color: "#067647" },
  ratings: { color: "#1d4ed8" },
} satisfies Record<string, SeriesStyle>;

/** Dots on each period only while they can be told apart. */
export function showDots(periods: number): boolean {
  return periods <= 45;
}
