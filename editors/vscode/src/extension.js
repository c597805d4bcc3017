// @ts-check
// The extension's entry point. The grammar and language configuration are
// declared in package.json; this adds the language server (server.js) and
// the text view of binary models (model-view.js).

'use strict';

const vscode = require('vscode');
const { registerModelView } = require('./model-view');
const { resolveCommand } = require('./onnxtxt');
const { Server } = require('./server');

/** The onnxtxt command, from the `onnxtxt.path` setting. */
const command = () => resolveCommand(vscode.workspace.getConfiguration('onnxtxt').get('path'));

/** The language server (started by `activate`). */
const server = new Server(command);

/** @param {vscode.ExtensionContext} context */
function activate(context) {
  registerModelView(context, command);
  context.subscriptions.push(
    vscode.commands.registerCommand('onnxtxt.restartServer', () => server.restart()),
    vscode.workspace.onDidChangeConfiguration((change) => {
      if (change.affectsConfiguration('onnxtxt.path')) server.restart();
    }),
  );
  // Not awaited: activation does not wait for the server.
  server.start();
}

/** VS Code waits for the promise: the server is shut down cleanly. */
function deactivate() {
  return server.stop();
}

module.exports = { activate, deactivate };
