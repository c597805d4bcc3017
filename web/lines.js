// Where each line of a text starts, in UTF-16 units: the page's
// highlighting (app.js) and a big text's lines (worker.js) are found
// through it.
export function lineStarts(text) {
  const starts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}
