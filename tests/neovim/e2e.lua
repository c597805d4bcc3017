-- Drives `onnxtxt lsp` from a real Neovim (0.7 or newer), run headless by
-- tests/it/lsp_neovim.rs with the README's configuration and a copy of
-- examples/control_flow.onnxtxt with a mistake (`totl` for `total`).
-- Writes what it got to $ONNXTXT_NVIM_OUT, which the test compares.

local TIMEOUT = 20000
local report = {}

local function say(...)
  table.insert(report, table.concat({ ... }, ' '))
end

-- The cursor `shift` bytes into the first occurrence of `text` (a plain
-- string) outside comments; returns its row (from 1) and column (from 0).
local function cursor_on(text, shift)
  for row, line in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    local col = line:find(text, 1, true)
    local comment = line:find('#', 1, true)
    if col and not (comment and comment < col) then
      col = col - 1 + (shift or 0)
      vim.api.nvim_win_set_cursor(0, { row, col })
      return row, col
    end
  end
  error('no ' .. text)
end

-- The result of a request at the cursor, from the one client.
local function request(method, extra)
  local params = vim.lsp.util.make_position_params()
  for key, value in pairs(extra or {}) do
    params[key] = value
  end
  local responses = assert(vim.lsp.buf_request_sync(0, method, params, TIMEOUT), method .. ': no answer')
  local _, response = next(responses)
  assert(response and not response.err, method .. ': ' .. vim.inspect(response))
  return response.result
end

local function diagnostics(buf)
  local shown = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local severity = ({ 'error', 'warning', 'info', 'hint' })[d.severity]
    local message = vim.split(d.message, '\n')[1]
    table.insert(shown, string.format('%d:%d %s %s', d.lnum + 1, d.col + 1, severity, message))
  end
  table.sort(shown)
  return shown
end

local function run()
  local buf = vim.api.nvim_get_current_buf()
  say('filetype', vim.bo[buf].filetype, 'commentstring', vim.bo[buf].commentstring)
  assert(vim.wait(TIMEOUT, function()
    return #vim.diagnostic.get(buf) > 0
  end), 'no diagnostics came')
  for _, line in ipairs(diagnostics(buf)) do
    say('diagnostic', line)
  end

  cursor_on('ReduceSum')
  local hover = request('textDocument/hover')
  say('hover', vim.split(hover.contents.value, '\n')[2])

  -- `total` read inside the If's then-branch: defined by the outer Loop.
  cursor_on('(total, two)', 1)
  local location = request('textDocument/definition')
  local row = location.range.start.line
  say('definition', row + 1 .. ':' .. location.range.start.character + 1,
    vim.trim(vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1]))

  local edit = request('textDocument/rename', { newName = 'running_total' })
  local _, changes = next(edit.changes)
  say('rename', #changes, 'edits')
  vim.lsp.util.apply_workspace_edit(edit, 'utf-16')

  -- Fix the mistake by hand; the diagnostics go away.
  local r, c = cursor_on('totl')
  vim.api.nvim_buf_set_text(buf, r - 1, c, r - 1, c + 4, { 'running_total' })
  assert(vim.wait(TIMEOUT, function()
    return #vim.diagnostic.get(buf) == 0
  end), 'the diagnostics stayed: ' .. table.concat(diagnostics(buf), '; '))
  say('diagnostics after the fix', #vim.diagnostic.get(buf))

  -- Mess up a line, then format.
  local messy_row = cursor_on('positive = Greater')
  vim.api.nvim_buf_set_lines(buf, messy_row - 1, messy_row, false, { 'positive=Greater(sum,zero)   # checked' })
  if vim.lsp.buf.format then
    vim.lsp.buf.format({ timeout_ms = TIMEOUT })
  else
    vim.lsp.buf.formatting_sync(nil, TIMEOUT)
  end
  say('--- the text after rename, fix and formatting')
  for _, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    say(line)
  end
end

local ok, failure = pcall(run)
if not ok then
  say('failed:', tostring(failure))
end
local file = assert(io.open(assert(os.getenv('ONNXTXT_NVIM_OUT')), 'w'))
file:write(table.concat(report, '\n'), '\n')
file:close()
vim.cmd(ok and 'qall!' or 'cquit! 1')
