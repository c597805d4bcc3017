// @ts-check
// The language client: starts `onnxtxt lsp` over stdio for .onnxtxt
// documents. When onnxtxt is missing or has no `lsp` command, it says so
// once and stays stopped; highlighting does not need it.

'use strict';

const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');
const { SCHEME } = require('./model-view');
const { probeServer } = require('./onnxtxt');

const OPEN_SETTINGS = 'Open Settings';

class Server {
  /** @param {() => string} command the onnxtxt command, read at each start */
  constructor(command) {
    this.command = command;
    /** @type {LanguageClient | undefined} */
    this.client = undefined;
    /** The last start or stop asked for: each waits for the one before. */
    this.last = Promise.resolve();
  }

  start() {
    return this.queue(() => this.startNow());
  }

  stop() {
    return this.queue(() => this.stopNow());
  }

  restart() {
    return this.queue(async () => {
      await this.stopNow();
      await this.startNow();
    });
  }

  /** @param {() => Promise<void>} step */
  queue(step) {
    this.last = this.last.then(step);
    return this.last;
  }

  async startNow() {
    const command = this.command();
    const probe = await probeServer(command);
    if (probe.status !== 'ok') {
      explain(command, probe);
      return;
    }
    this.client = new LanguageClient(
      'onnxtxt',
      'onnxtxt language server',
      { command, args: ['lsp'], transport: TransportKind.stdio },
      {
        documentSelector: ['file', 'untitled', SCHEME].map((scheme) => ({ language: 'onnxtxt', scheme })),
      },
    );
    try {
      await this.client.start();
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      vscode.window.showErrorMessage(`onnxtxt lsp (${command}) failed to start: ${why}`);
    }
  }

  async stopNow() {
    const client = this.client;
    this.client = undefined;
    if (!client?.isRunning()) return;
    try {
      await client.stop();
    } catch {
      // The server did not shut down in time; the client has ended it.
    }
  }
}

/**
 * Tells why the server was not started, with a way to fix the setting.
 * @param {string} command
 * @param {{ status: string, detail: string }} probe what `probeServer` found
 */
async function explain(command, probe) {
  const why =
    probe.status === 'missing'
      ? `onnxtxt was not found (onnxtxt.path is "${command}")`
      : `"${command}" has no \`lsp\` command: it needs a newer onnxtxt`;
  const choice = await vscode.window.showWarningMessage(
    `${why}. Highlighting works without it; diagnostics, hover and the other language features need it.`,
    { detail: probe.detail },
    OPEN_SETTINGS,
  );
  if (choice === OPEN_SETTINGS) {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'onnxtxt.path');
  }
}

module.exports = { Server };
