/**
 * The playground page: a channel with a message box, a user switcher, ephemeral messages marked
 * as such, buttons that work, modals, the App Home tab, and a "view payload" toggle on every
 * message that shows the exact JSON (a Block Kit debugger). Plain HTML and script, no build step.
 */

import { blockKitRenderer } from './blockkit.js';
import type { PlaygroundUser } from './workspace.js';

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:15px/1.46 -apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1d1c1d;background:#fff;display:flex;height:100vh}
nav{width:240px;background:#3f0e40;color:#cfc3cf;padding:16px 12px;display:flex;flex-direction:column;gap:6px}
nav h1{color:#fff;font-size:18px;margin:0 0 12px}nav .tab{padding:4px 8px;border-radius:6px;cursor:pointer}nav .tab.active{background:#1164a3;color:#fff}
nav label{margin-top:auto;font-size:13px}nav #arrive{margin-top:12px;color:#1d1c1d}nav select{width:100%;margin-top:4px;padding:4px}
main{flex:1;display:flex;flex-direction:column;min-width:0}
header{border-bottom:1px solid #ddd;padding:10px 20px;font-weight:700}header small{font-weight:400;color:#616061;margin-left:8px}
#messages,#home,#dms{flex:1;overflow-y:auto;padding:12px 20px}
.msg{padding:8px 0;border-bottom:1px solid #f4f4f4}.msg .who{font-weight:700}.msg .who small{font-weight:400;color:#616061;margin-left:6px}
.msg.ephemeral{background:#f8f8f8;border-left:3px solid #1264a3;padding-left:10px}.eph{color:#616061;font-size:12px;margin-bottom:2px}
.msg.typed{color:#616061;font-style:italic;border:0;padding:2px 0}
.toggle{font-size:12px;color:#1264a3;cursor:pointer;background:none;border:0;padding:0;margin-top:4px}
pre.payload,pre.raw{background:#f6f6f6;border:1px solid #ddd;padding:8px;font-size:12px;white-space:pre-wrap;word-break:break-word;max-height:400px;overflow:auto}
pre.raw{border-color:#e8a33d}
.bk-header{font-size:18px;font-weight:900;margin:4px 0}.bk-section{display:flex;gap:12px;margin:6px 0}.bk-text{flex:1;white-space:normal}
.bk-rich{white-space:pre-wrap}
.bk-fields{display:grid;grid-template-columns:1fr 1fr;gap:4px 16px;margin-top:4px}.bk-context{font-size:13px;color:#616061;margin:4px 0}
.bk-actions{display:flex;gap:8px;margin:6px 0;flex-wrap:wrap}.bk-select{padding:4px 8px;border:1px solid #bbb;border-radius:4px;max-width:100%}.bk-divider{border:0;border-top:1px solid #ddd}
.bk-button{border:1px solid #bbb;background:#fff;border-radius:4px;padding:4px 12px;font-weight:700;cursor:pointer;color:inherit;font-size:13.33px;text-decoration:none;display:inline-block}.bk-button[disabled]{cursor:not-allowed;opacity:.6}
.bk-button.primary{background:#007a5a;color:#fff;border-color:#007a5a}.bk-button.danger{background:#e01e5a;color:#fff;border-color:#e01e5a}
code{background:#f4f4f4;border:1px solid #e0e0e0;border-radius:3px;padding:0 3px;color:#c01343;font-size:13px}
blockquote{margin:0;border-left:4px solid #ddd;padding-left:8px}.mention{background:#e8f5fa;color:#1264a3;border-radius:3px;padding:0 2px}
form#box{border-top:1px solid #ddd;padding:12px 20px}form#box input{width:100%;padding:10px;border:1px solid #999;border-radius:8px;font-size:15px}
#modal,#confirm{position:fixed;inset:0;background:rgba(0,0,0,.45);display:none;align-items:center;justify-content:center}#confirm{z-index:2}
#confirm .box{background:#fff;border-radius:8px;width:440px;max-width:96vw;padding:20px}#confirm h2{margin-top:0;font-size:20px}
#modal .box{background:#fff;border-radius:8px;width:520px;max-height:90vh;overflow:auto;padding:20px}#modal h2{margin-top:0}
.bk-input{display:block;margin:10px 0}.bk-input span{display:block;font-weight:700;margin-bottom:4px}.bk-input input,.bk-input textarea{width:100%;padding:8px}
.bk-hint{display:block;color:#616061;font-size:12px;margin-top:2px}.modal-buttons{display:flex;justify-content:flex-end;gap:8px;margin-top:12px}.error{color:#e01e5a;font-size:13px}
/* Narrow screens (a phone): the sidebar becomes a bar above the channel; later rules win, so this comes last. */
@media (max-width:640px){body{flex-direction:column}nav{width:auto;flex-direction:row;flex-wrap:wrap;align-items:center;gap:4px 8px;padding:8px}nav h1{margin:0 8px 0 0;font-size:16px}nav label{margin-top:0;flex-basis:100%}nav p{display:none}#modal .box{width:96vw}}
`;

const SCRIPT = `
var __name = function (f) { return f; };
const BK = (${blockKitRenderer.toString()})(Object.fromEntries([...CONFIG.users.map((u) => [u.id, u.name]), [CONFIG.channel.id, CONFIG.channel.name]]), () => CONFIG.users.find((u) => u.id === state.user)?.tz);
const state = { user: CONFIG.users[0].id, tab: 'channel', version: -1, open: new Set(), messages: [] };
const $ = (id) => document.getElementById(id);
async function post(path, body) {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: state.user, ...body }) });
  return res.json();
}
function messageHtml(m) {
  const who = m.author === 'bot' ? 'countersign <small>APP</small>' : m.author === 'slackbot' ? 'Slackbot' : CONFIG.users.find((u) => u.id === m.author)?.name ?? m.author;
  if (m.typed) return '<div class="msg typed" data-id="' + m.id + '">You typed <code>' + BK.plain(m.text) + '</code></div>';
  const body = m.blocks && m.blocks.length ? BK.blocks(m.blocks) : BK.mrkdwn(m.text || '');
  const dm = m.channel.startsWith('D');
  const eph = m.ephemeralTo && !dm ? '<div class="eph">👁 Only visible to you</div>' : '';
  const open = state.open.has(m.id);
  const payload = open ? '<pre class="payload">' + BK.plain(JSON.stringify({ text: m.text, blocks: m.blocks }, null, 2)).replace(/<br>/g, '\\n') + '</pre>' : '';
  return '<div class="msg' + (m.ephemeralTo && !dm ? ' ephemeral' : '') + '" data-id="' + m.id + '">' + eph + '<div class="who">' + who + '</div>' + body +
    '<button class="toggle" data-toggle="' + m.id + '">' + (open ? 'hide payload' : 'view payload') + '</button>' + payload + '</div>';
}
function render(s) {
  state.messages = s.messages;
  const list = $('messages');
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  const inChannel = s.messages.filter((m) => m.channel === CONFIG.channel.id);
  list.innerHTML = inChannel.map(messageHtml).join('') || '<p class="bk-context">Type <code>/approvals</code> or <code>/collect help</code> below.</p>';
  if (atBottom) list.scrollTop = list.scrollHeight;
  // The app's direct messages (digests, a collection that aborted), as Slack shows them in the app's Messages tab.
  const dms = s.messages.filter((m) => m.channel.startsWith('D'));
  $('dms').innerHTML = dms.map(messageHtml).join('') || '<p class="bk-context">countersign has not sent you a direct message yet: approvals as they arrive (try <b>Make an approval arrive</b>), reminders (<code>/approvals remind daily 09:00</code>) and aborted collections come here.</p>';
  $('dm-count').textContent = dms.length ? ' (' + dms.length + ')' : '';
  $('home').innerHTML = s.home ? BK.blocks(s.home.blocks || []) : '<p class="bk-context">The app has not published a Home tab for this user yet.</p>';
  const modal = $('modal');
  if (s.modal) {
    modal.style.display = 'flex';
    if (modal.dataset.shown !== JSON.stringify(s.modal)) {
      modal.dataset.shown = JSON.stringify(s.modal);
      const title = s.modal.title ? BK.plain(s.modal.title.text) : '';
      // As in Slack: Submit only when the view has one; the close button says what the view says.
      const submit = s.modal.submit ? '<button class="bk-button primary">' + BK.plain(s.modal.submit.text) + '</button>' : '';
      const closeText = s.modal.close ? BK.plain(s.modal.close.text) : 'Cancel';
      modal.querySelector('.box').innerHTML = '<h2>' + title + '</h2><form id="modal-form">' + BK.blocks(s.modal.blocks || []) +
        '<div class="error" id="modal-errors"></div><div class="modal-buttons"><button type="button" class="bk-button" id="modal-cancel">' + closeText + '</button>' + submit + '</div></form>';
    }
  } else {
    modal.style.display = 'none';
    modal.dataset.shown = '';
    // A closed modal leaves nothing behind on the page.
    modal.querySelector('.box').innerHTML = '';
  }
}
async function refresh(force) {
  const s = await (await fetch('/playground/state?user=' + encodeURIComponent(state.user))).json();
  if (force || s.version !== state.version) { state.version = s.version; render(s); }
}
document.addEventListener('click', async (e) => {
  const t = e.target.closest('button, a.bk-button, .tab');
  if (!t) return;
  if (t.dataset.toggle) { const id = Number(t.dataset.toggle); state.open.has(id) ? state.open.delete(id) : state.open.add(id); return refresh(true); }
  if (t.classList.contains('tab')) {
    state.tab = t.dataset.tab;
    if (state.tab === 'home') { post('/playground/home', {}).then(() => setTimeout(refresh, 150)); }
    document.querySelectorAll('.tab').forEach((x) => x.classList.toggle('active', x === t));
    $('messages').hidden = state.tab !== 'channel'; $('box').hidden = state.tab !== 'channel'; $('home').hidden = state.tab !== 'home'; $('dms').hidden = state.tab !== 'dms';
    const where = state.tab === 'home' ? 'countersign · Home' : state.tab === 'dms' ? 'countersign · Messages' : '# ' + CONFIG.channel.name;
    $('title').replaceChildren(where, Object.assign(document.createElement('small'), { textContent: 'local playground' }));
    return;
  }
  if (t.id === 'arrive') {
    // The demo service's side: a request made now gives this user's account an approval; the app finds it at its next check.
    t.disabled = true;
    try { const r = await post('/playground/arrive', {}); $('arrive-note').textContent = r.said || r.error || ''; } finally { t.disabled = false; }
    return;
  }
  if (t.id === 'modal-cancel') { await post('/playground/close', {}); return refresh(); }
  if (t.id === 'confirm-ok' || t.id === 'confirm-deny') { answerConfirm(t.id === 'confirm-ok'); return; }
  if (t.dataset.actionId !== undefined) {
    // As Slack does: a button with a confirm dialog asks first, and only Confirm sends the click.
    if (t.dataset.confirm && !(await askFirst(JSON.parse(t.dataset.confirm)))) return;
    await post('/playground/action', { ...where(t), actionId: t.dataset.actionId, value: t.dataset.value || undefined });
    setTimeout(refresh, 150);
  }
});
// A button's confirm dialog, drawn as Slack draws one: its title, its text, and its two buttons as they read.
let answerConfirm = () => {};
function askFirst(c) {
  const box = $('confirm');
  const ok = c.confirm ? BK.text(c.confirm) : 'Yes';
  const deny = c.deny ? BK.text(c.deny) : 'Cancel';
  box.querySelector('.box').innerHTML = '<h2>' + BK.text(c.title) + '</h2><div class="bk-text">' + BK.text(c.text) + '</div>' +
    '<div class="modal-buttons"><button type="button" class="bk-button" id="confirm-deny">' + deny + '</button>' +
    '<button type="button" class="bk-button ' + (c.style === 'danger' ? 'danger' : 'primary') + '" id="confirm-ok">' + ok + '</button></div>';
  box.style.display = 'flex';
  return new Promise((resolve) => {
    answerConfirm = (yes) => { box.style.display = 'none'; box.querySelector('.box').innerHTML = ''; answerConfirm = () => {}; resolve(yes); };
  });
}
// Where a control is, as Slack tells the app: a message (by id), the open modal, or the Home tab; and its block.
function where(t) {
  const msg = t.closest('.msg');
  const surface = t.closest('#modal') ? 'modal' : t.closest('#home') ? 'home' : 'message';
  return { surface, messageId: msg ? Number(msg.dataset.id) : 0, blockId: t.closest('.bk-actions')?.dataset.blockId ?? '' };
}
document.addEventListener('change', async (e) => {
  const t = e.target.closest('select[data-action-id]');
  if (!t || t.value === '') return;
  await post('/playground/action', { ...where(t), actionId: t.dataset.actionId, selected: t.value });
  setTimeout(refresh, 150);
});
document.addEventListener('submit', async (e) => {
  e.preventDefault();
  if (e.target.id === 'box') {
    const input = $('text'); const text = input.value; input.value = ''; $('usage').textContent = '';
    if (text.trim()) { await post('/playground/command', { text }); setTimeout(refresh, 150); }
    return;
  }
  if (e.target.id === 'modal-form') {
    // As Slack does, a form sent again drops the errors of the last try until the app answers.
    $('modal-errors').textContent = '';
    const values = Object.fromEntries(new FormData(e.target));
    const r = await post('/playground/submit', { values });
    if (r.errors) { $('modal-errors').textContent = Object.values(r.errors).join(' '); return; }
    refresh();
  }
});
$('text').addEventListener('input', (e) => {
  const command = e.target.value.trim().split(' ')[0];
  $('usage').textContent = CONFIG.usage[command] ? command + ' ' + CONFIG.usage[command] : '';
});
$('who').addEventListener('change', (e) => { state.user = e.target.value; state.version = -1; if ($('arrive-note')) $('arrive-note').textContent = ''; refresh(true); });
setInterval(refresh, 400);
refresh(true);
`;

export function playgroundPage(input: {
  users: readonly PlaygroundUser[];
  channel: { id: string; name: string };
  suggestions: readonly string[];
  usage: Readonly<Record<string, string>>;
  dataNote?: string | undefined;
  /** Whether the page has "Make an approval arrive" (local mode's demo service makes one for the user's account). */
  arrivals?: boolean;
}): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  // JSON inside a script element: escape "<" so that no value can close the element.
  const config = JSON.stringify({ users: input.users, channel: input.channel, usage: input.usage }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>countersign playground</title><meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}</style></head>
<body>
<nav><h1>countersign</h1><div class="tab active" data-tab="channel"># ${esc(input.channel.name)}</div><div class="tab" data-tab="home">🏠 App Home</div><div class="tab" data-tab="dms">💬 Messages<span id="dm-count"></span></div>
${input.arrivals ? '<button type="button" class="bk-button" id="arrive" title="The demo service gives your linked account a new pending approval now; countersign messages you at its next check">📨 Make an approval arrive</button><div style="font-size:12px" id="arrive-note" role="status"></div>' : ''}
<label>You are<select id="who">${input.users.map((u) => `<option value="${esc(u.id)}">${esc(u.name)} · ${esc(u.role)}</option>`).join('')}</select></label>
<p style="font-size:12px">Local mode: a stand-in for Slack, with the reference Command Service and its demo data.</p>${input.dataNote ? `<p style="font-size:12px" id="data-note">${esc(input.dataNote)}</p>` : ''}</nav>
<main><header id="title"># ${esc(input.channel.name)}<small>local playground</small></header>
<div id="messages"></div><div id="home" hidden></div><div id="dms" hidden></div>
<form id="box"><div id="usage" class="bk-context"></div><input id="text" list="hints" placeholder="Message #${esc(input.channel.name)} — try /approvals or /collect help" autocomplete="off" autofocus>
<datalist id="hints">${input.suggestions.map((s) => `<option value="${esc(s)}">`).join('')}</datalist></form></main>
<div id="modal"><div class="box"></div></div>
<div id="confirm" role="dialog" aria-modal="true"><div class="box"></div></div>
<script>const CONFIG = ${config};${SCRIPT}</script>
</body></html>`;
}
