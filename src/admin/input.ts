/** A token typed or piped to the CLI: read from standard input, never argv; at a terminal, without echo. */

import { Secret } from '../runtime/secret.js';
import { Cancelled, type CliIo, UsageError } from './io.js';

const MAX_TOKEN_BYTES = 8192;

function isTerminal(input: NodeJS.ReadableStream): input is NodeJS.ReadStream {
  return (input as NodeJS.ReadStream).isTTY === true;
}

/** The token, from standard input only: typed or pasted without echo at a terminal, or piped in. */
export async function readToken(io: CliIo): Promise<Secret> {
  const stdin = io.stdin;
  const token = (isTerminal(stdin) && io.terminal !== undefined ? await readHidden(stdin, io.terminal) : await readPiped(stdin)).trim();
  if (token === '')
    throw new UsageError('no token on standard input; pipe it in, e.g. countersign tokens set --user U012ABCDEF --command all < token.txt');
  if (/\s|[\u0000-\u001f\u007f]/.test(token))
    throw new UsageError('the token on standard input contains spaces or control characters; give exactly one token');
  return new Secret(token);
}

async function readPiped(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    size += (chunk as Buffer).length;
    if (size > MAX_TOKEN_BYTES) throw new UsageError('standard input is larger than any token (8 KiB)');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const SIGNAL_EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/**
 * One line from a terminal with its echo off (raw mode), as a password prompt reads: the token
 * never shows on screen or in the scrollback. Enter ends it, Backspace deletes, Ctrl-C cancels,
 * Ctrl-D ends it (or cancels an empty one). The terminal gets its mode back however this ends: a
 * line, a cancel, an error, a signal from elsewhere, or the process exiting.
 */
function readHidden(input: NodeJS.ReadStream, prompt: NodeJS.WriteStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const restore = () => {
      input.off('data', onData);
      input.off('error', onError);
      for (const signal of Object.keys(SIGNAL_EXIT)) process.off(signal, onSignal);
      process.off('exit', restoreMode);
      restoreMode();
      input.pause();
      prompt.write('\n');
    };
    const restoreMode = () => {
      if (input.isRaw) input.setRawMode(false);
    };
    const finish = (outcome: () => void) => {
      restore();
      outcome();
    };
    const onSignal = (signal: NodeJS.Signals) => {
      restore();
      process.exit(SIGNAL_EXIT[signal] ?? 1);
    };
    const onError = (error: Error) => finish(() => reject(error));
    const onData = (chunk: Buffer | string) => {
      for (const c of chunk.toString()) {
        if (c === '\r' || c === '\n') return finish(() => resolve(text));
        if (c === '\u0003') return finish(() => reject(new Cancelled()));
        if (c === '\u0004') return finish(() => (text === '' ? reject(new Cancelled()) : resolve(text)));
        if (c === '\u007f' || c === '\b') text = text.slice(0, -1);
        else text += c;
        if (text.length > MAX_TOKEN_BYTES) return finish(() => reject(new UsageError('that is larger than any token (8 KiB)')));
      }
    };
    // Echo goes off before the prompt shows, so nothing typed after the prompt can be echoed.
    input.setRawMode(true);
    process.on('exit', restoreMode);
    for (const signal of Object.keys(SIGNAL_EXIT)) process.on(signal, onSignal);
    input.on('data', onData);
    input.on('error', onError);
    input.resume();
    prompt.write('Paste or type the token, then press Enter (it is not shown): ');
  });
}
