import { subtreeText } from "./subtree-text";

/**
 * The name a form field without one of its own takes from the table or grid it sits in (issue #35:
 * a data-entry grid's cells are "name" and "email", not "value", "value 2").
 */

const CELL = "td, th, [role=gridcell], [role=cell]";

/**
 * What a field in a table is: the label of its row when other rows have fields in the same column
 * (a data-entry grid whose rows are "name", "email" under one "Value" header), else its column's
 * header, else its row's label (its `th`, or its first cell when that holds text and no field), or "".
 */
export function tableContextName(element: Element): string {
  const cell = element.closest(CELL);
  const row = cell?.parentElement;
  if (cell === null || cell === undefined || row === null || row === undefined) return "";
  const cellsOf = (of: Element) => [...of.children].filter((child) => child.matches(CELL));
  const cells = cellsOf(row);
  const column = columnOf(cells, cell);
  const table = cell.closest("table, [role=grid], [role=table], [role=treegrid]");
  const header = table === null ? undefined : headerRow(table, row);
  let columnName = "";
  if (header !== undefined) {
    const heading = cellAt(cellsOf(header), column);
    columnName = heading === undefined ? "" : subtreeText(heading).trim();
  }
  const label =
    cells.find((each) => each !== cell && (each.tagName === "TH" || each.getAttribute("role") === "rowheader")) ?? (cells[0] !== cell ? cells[0] : undefined);
  const rowName = label === undefined || label.querySelector("input, select, textarea") !== null ? "" : subtreeText(label).trim();
  if (rowName !== "" && table !== null) {
    const fieldsInColumn = [...table.querySelectorAll("tr, [role=row]")].filter(
      (other) => cellAt(cellsOf(other), column)?.querySelector("input, select, textarea") != null,
    ).length;
    if (fieldsInColumn > 1 || columnName === "") return rowName;
  }
  return columnName || rowName;
}

/** The column a cell starts at, counting spans. */
function columnOf(cells: readonly Element[], cell: Element): number {
  let column = 0;
  for (const each of cells) {
    if (each === cell) break;
    column += (each as HTMLTableCellElement).colSpan || 1;
  }
  return column;
}

/** The cell of a row that covers a column, counting spans. */
function cellAt(cells: readonly Element[], column: number): Element | undefined {
  let at = 0;
  for (const each of cells) {
    const span = (each as HTMLTableCellElement).colSpan || 1;
    if (column >= at && column < at + span) return each;
    at += span;
  }
  return undefined;
}

/** The row of column headers above `row`: the table head's last row, else the first row made of header cells. */
function headerRow(table: Element, row: Element): Element | undefined {
  const head = (table as HTMLTableElement).tHead;
  if (head !== null && head !== undefined && head.rows.length > 0) return head.rows[head.rows.length - 1];
  const rows = table.querySelectorAll("tr, [role=row]");
  for (const candidate of rows) {
    if (candidate === row) return undefined;
    const cells = [...candidate.children];
    if (cells.length > 0 && cells.every((each) => each.tagName === "TH" || each.getAttribute("role") === "columnheader")) return candidate;
  }
  return undefined;
}
