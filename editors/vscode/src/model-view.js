// @ts-check
// "Open ONNX Model as Text": a binary .onnx model shown, read-only, as the
// text `onnxtxt print` makes of it, refreshed when the file changes.

'use strict';

const vscode = require('vscode');
const { printModel } = require('./onnxtxt');

/** The scheme of the text views: `onnxtxt-model:/dir/m.onnx.onnxtxt?<the model's URI>`. */
const SCHEME = 'onnxtxt-model';

/**
 * The URI of the text view of the model at `model`.
 * @param {vscode.Uri} model
 */
function textUri(model) {
  return vscode.Uri.from({ scheme: SCHEME, path: `${model.path}.onnxtxt`, query: model.toString() });
}

/**
 * The model a text view shows.
 * @param {vscode.Uri} text
 */
const modelUri = (text) => vscode.Uri.parse(text.query, true);

class ModelTextProvider {
  /** @param {() => string} command the onnxtxt command, read when needed */
  constructor(command) {
    this.command = command;
    this.changed = new vscode.EventEmitter();
    this.onDidChange = this.changed.event;
    /** @type {Map<string, vscode.FileSystemWatcher>} the watchers of the models shown, by text view URI */
    this.watchers = new Map();
  }

  /** @param {vscode.Uri} uri */
  async provideTextDocumentContent(uri) {
    const model = modelUri(uri);
    this.watch(uri, model);
    const source =
      model.scheme === 'file' ? { file: model.fsPath } : { bytes: await vscode.workspace.fs.readFile(model) };
    // A failure is shown by VS Code where the text would be.
    return printModel(this.command(), source);
  }

  /**
   * Refreshes the text view `uri` when the model at `model` changes.
   * @param {vscode.Uri} uri
   * @param {vscode.Uri} model
   */
  watch(uri, model) {
    const key = uri.toString();
    if (this.watchers.has(key)) return;
    const folder = vscode.Uri.joinPath(model, '..');
    const name = model.path.slice(model.path.lastIndexOf('/') + 1);
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, name));
    const refresh = () => this.changed.fire(uri);
    watcher.onDidChange(refresh);
    watcher.onDidCreate(refresh);
    this.watchers.set(key, watcher);
  }

  /**
   * Stops watching the model of a text view that was closed.
   * @param {vscode.Uri} uri
   */
  forget(uri) {
    const key = uri.toString();
    this.watchers.get(key)?.dispose();
    this.watchers.delete(key);
  }

  dispose() {
    this.watchers.forEach((watcher) => watcher.dispose());
    this.changed.dispose();
  }
}

/**
 * The model to open: the one clicked, else the active tab's, else one the user picks.
 * @param {unknown} clicked what the command was given (a URI from a menu)
 */
async function chooseModel(clicked) {
  if (clicked instanceof vscode.Uri) return clicked;
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  const active = input && typeof input === 'object' && 'uri' in input ? input.uri : undefined;
  if (active instanceof vscode.Uri && active.path.endsWith('.onnx')) return active;
  const picked = await vscode.window.showOpenDialog({
    canSelectMany: false,
    filters: { 'ONNX models': ['onnx'], 'All files': ['*'] },
    title: 'Open ONNX Model as Text',
  });
  return picked?.[0];
}

/**
 * Registers the text views and the command that opens them.
 * @param {vscode.ExtensionContext} context
 * @param {() => string} command the onnxtxt command, read when needed
 */
function registerModelView(context, command) {
  const provider = new ModelTextProvider(command);
  context.subscriptions.push(
    provider,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, provider),
    vscode.workspace.onDidCloseTextDocument((document) => {
      if (document.uri.scheme === SCHEME) provider.forget(document.uri);
    }),
    vscode.commands.registerCommand('onnxtxt.openModelAsText', async (clicked) => {
      const model = await chooseModel(clicked);
      if (!model) return;
      const document = await vscode.workspace.openTextDocument(textUri(model));
      await vscode.window.showTextDocument(document, { preview: false });
    }),
  );
}

module.exports = { SCHEME, registerModelView };
