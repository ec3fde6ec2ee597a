/* alarmd's phone page, drawn from the latest /api/state (a GET, then the /api/events stream).

Test hooks: each element with an id also has data-testid = id (set near the end of this file):
 loading toast error-{banner,text,dismiss} pairing pair-{form,name,button,wait,code,instructions,status,retry}
 app next-alarm next-{time,detail,in} clock-warning offline add-alarm alarm-list alarm-empty
 alarm-dialog alarm-{time,label,snooze,sound,fade,volume,light,save,cancel} repeat-{once,weekdays,weekends,daily,custom}
 alarm-days day-{mon,tue,wed,thu,fri,sat,sun} timer-form timer-{minutes,label,start,list}
 device device-summary status-list missed-list settings settings-{try,save}
 sounds sounds-summary sound-list sound-form sound-{file,progress,add} alarm-sound-play
 set-{volume,volume-out,default-sound,crescendo,snooze,autosilence,light-lead,light-after,night-start,night-end} phones pairing-list
 ringing ringing-{kind,label,more,stop,snooze} confirm-dialog confirm-{text,yes,no}
data-testid only: alarm-error ringing-error timer-quick-{1,5,10} clock-time set-clock
Rows (data-testid, data-id = the server's id) and data-testid inside them:
 alarm-row: alarm-row-{time,label,repeat,next,owner} alarm-switch (role=switch) alarm-{edit,skip,unskip,delete,end-snooze}
 timer-row: timer-{name,state,countdown,pause,resume,cancel} (timer-countdown reads mm:ss)
 pairing-row: pairing-{name,current,revoke}; status-row (data-name); missed-row
 sound-row (data-name): sound-{name,detail,play,delete} */

const $ = (id) => document.getElementById(id);
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const PRESETS = { once: [], weekdays: DAYS.slice(0, 5), weekends: ['sat', 'sun'], daily: DAYS };
const PART_NAMES = { sound: 'Sound', display: 'Display', buttons: 'Buttons', led: 'Light' };

// skew: server clock minus this phone's (ms). pairGen: bumped to abandon a pairing wait.
// drawn: section -> the JSON it was last drawn from. quieted: ringing ids stopped here, hidden until the server agrees.
let state = null, skew = 0, es = null, streamUp = false, pairingShown = false, pairGen = 0;
let drawn = {}, editing = null, settingsDirty = false, tickTimer = 0, toastTimer = 0, fmtKey = '', F = {};
const quieted = new Map();

// Builds elements (tid: data-testid); strings become text nodes, so server data never becomes markup.
function h(tag, props, ...kids) {
  const el = document.createElement(tag);
  for (const k in props) {
    const v = props[k];
    if (v == null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'tid') el.dataset.testid = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v);
  }
  for (const c of kids.flat()) if (c) el.append(c); // skips false/null/''/0 from `cond && node`
  return el;
}
// Writing only real changes keeps live regions from repeating themselves.
const setText = (el, s) => { if (el.textContent !== s) el.textContent = s; };
const say = (id, s) => setText($(id), s);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const serverNow = () => Date.now() + skew;
const enc = encodeURIComponent;
const valid = (d) => d && !Number.isNaN(+d);
const whole = (v, lo, hi) => Number.isInteger(v) && v >= lo && v <= hi;

function toast(msg) {
  say('toast', msg);
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => say('toast', ''), 3500);
}

// Errors show in an open dialog (the banner would be under it), else in the banner.
function showError(msg) {
  const dlg = ['ringing', 'alarm-dialog'].map($).find((d) => d.open);
  const box = dlg ? dlg.querySelector('.dlg-error') : $('error-text');
  box.textContent = msg;
  (dlg ? box : $('error-banner')).hidden = false;
}
function hideError() {
  for (const b of document.querySelectorAll('.dlg-error, #error-banner')) b.hidden = true;
}

// {status, data} on 2xx, else throws an Error with .status (0: unreachable).
async function api(method, path, body) {
  const opts = { method, cache: 'no-store', headers: {} };
  if (method !== 'GET') opts.headers['Content-Type'] = 'application/json';
  if (body !== undefined) opts.body = JSON.stringify(body);
  let res, data = null;
  try {
    res = await fetch(path, opts);
  } catch (e) {
    throw Object.assign(new Error('Can’t reach the clock. Is this phone on the home Wi-Fi?'), { status: 0 });
  }
  try { data = await res.json(); } catch (e) { /* empty or not JSON: the status says enough */ }
  if (res.ok) return { status: res.status, data };
  if (res.status === 401 && !path.startsWith('/api/pair')) showPairing();
  throw Object.assign(new Error((data && data.error) || `The clock answered with error ${res.status}.`), { status: res.status });
}

// A change: the new state comes on the stream, so fetch it only while the stream is down.
async function act(method, path, body, done) {
  try {
    await api(method, path, body);
  } catch (e) {
    if (e.status !== 401) showError(e.message);
    return false;
  }
  hideError();
  if (done) toast(done);
  if (!streamUp) refresh();
  return true;
}

const post = (path, done, body) => act('POST', path, body, done);
const del = (path, done) => act('DELETE', path, undefined, done);

async function refresh() {
  try {
    applyState((await api('GET', '/api/state')).data);
    return true;
  } catch (e) {
    if (e.status !== 401) showError(e.message);
    return false;
  }
}

async function start() {
  if (await refresh()) openStream();
  else if (!pairingShown) setTimeout(start, 5000); // the clock may be rebooting
}

function openStream() {
  if (es) es.close();
  const src = es = new EventSource('/api/events');
  src.onopen = () => { streamUp = true; $('offline').hidden = true; };
  src.addEventListener('state', (e) => {
    let s;
    try { s = JSON.parse(e.data); } catch (err) { return; } // a torn event: the next one is whole
    applyState(s);
  });
  src.onerror = () => {
    if (src !== es) return;
    streamUp = false;
    $('offline').hidden = false;
    if (src.readyState !== EventSource.CLOSED) return; // EventSource reconnects by itself
    // The browser gave up, as it does on a non-200 answer such as 401: /api/state tells why.
    es = null;
    refresh().then((ok) => setTimeout(() => { if (!es && !pairingShown) openStream(); }, ok ? 2000 : 5000));
  };
}

const guessName = (ua = navigator.userAgent) => /Android/.test(ua) ? `Android ${/Mobile/.test(ua) ? 'phone' : 'tablet'}`
  : (ua.match(/iPhone|iPad/) || ['Phone'])[0];

function showPairing() {
  if (pairingShown) return;
  pairingShown = true;
  if (es) es.close();
  es = null;
  streamUp = false;
  // Forget what was drawn for the paired browser, so nothing of the alarms stays in the page.
  state = null;
  drawn = {};
  for (const id of ['alarm-list', 'timer-list', 'status-list', 'missed-list', 'pairing-list']) $(id).replaceChildren();
  for (const d of document.querySelectorAll('dialog[open]')) d.close();
  stopTicking();
  $('loading').hidden = $('app').hidden = true;
  $('pairing').hidden = false;
  pairForm();
}

function pairForm() {
  pairGen++;
  $('pair-form').hidden = false;
  $('pair-wait').hidden = true;
  if (!$('pair-name').value) $('pair-name').value = guessName();
}

async function pair(ev) {
  ev.preventDefault();
  const name = $('pair-name').value.trim();
  if (!name || name.length > 32) {
    showError('Give this phone a name of 1 to 32 characters.');
    return $('pair-name').focus();
  }
  $('pair-button').disabled = true;
  try {
    const code = String((await api('POST', '/api/pair', { name })).data.code);
    hideError();
    say('pair-code', code);
    say('pair-instructions', `Check that the clock shows ${code}, then hold STOP and SNOOZE together on the clock for 2 seconds to allow; STOP refuses.`);
    say('pair-status', 'Waiting for an answer at the clock…');
    $('pair-retry').hidden = $('pair-form').hidden = true;
    $('pair-wait').hidden = false;
    $('pair-instructions').focus(); // screen readers read the instruction at once
    waitForClock(++pairGen);
  } catch (e) {
    showError(e.message);
  }
  $('pair-button').disabled = false;
}

async function waitForClock(gen) {
  let failures = 0;
  while (gen === pairGen) {
    const began = Date.now();
    const r = await api('POST', '/api/pair/wait').catch((e) => e);
    if (gen !== pairGen) return;
    if (r instanceof Error) {
      if (r.status === 0 && ++failures < 10) { // a Wi-Fi blip should not cost the code
        say('pair-status', 'Can’t reach the clock; still trying…');
        await sleep(3000);
        continue;
      }
      say('pair-status', 'Not paired.');
      showError(r.message);
      return $('pair-retry').hidden = false;
    }
    failures = 0;
    if (r.status === 200 && r.data && r.data.paired) {
      say('pair-status', 'Paired.');
      pairGen++;
      pairingShown = false;
      return start();
    }
    say('pair-status', 'Waiting for an answer at the clock…');
    if (Date.now() - began < 1000) await sleep(1000); // the server holds each wait ~25 s; never spin
  }
}

function fmt(opts, zone) {
  try { return new Intl.DateTimeFormat('en-GB', { ...opts, timeZone: zone }); } catch (e) {
    return new Intl.DateTimeFormat('en-GB', opts); // an unknown zone: the phone's own beats nothing
  }
}
function formatters() {
  const key = `${state.zone}|${state.clock24h}`;
  if (key === fmtKey) return;
  fmtKey = key;
  const z = state.zone || undefined;
  const t = state.clock24h === false ? { hour: 'numeric', minute: '2-digit', hourCycle: 'h12' }
    : { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
  const date = { weekday: 'short', day: 'numeric', month: 'short' };
  F = {
    time: fmt(t, z),
    wall: fmt(t, 'UTC'), // "07:30" wall times have no zone
    ymd: fmt({ year: 'numeric', month: 'numeric', day: 'numeric' }, z),
    weekday: fmt({ weekday: 'short' }, z),
    date: fmt(date, z),
    utcDate: fmt(date, 'UTC'),
  };
}

// ["7:30", "am"] apart, so big clocks can draw "am" smaller.
function timeParts(f, date) {
  let main = '', period = '';
  for (const p of f.formatToParts(date)) if (p.type === 'dayPeriod') period = p.value; else main += p.value;
  return [main.trim(), period];
}
function timeNodes(f, date) {
  const [main, period] = timeParts(f, date);
  return [main, period && h('small', {}, ` ${period}`)]; // the space inside, so it is small too
}
const timeText = (f, date) => timeParts(f, date).join(' ').trim();
function wallDate(hhmm) {
  const [hh, mm] = String(hhmm).split(':').map(Number);
  return new Date(Date.UTC(2000, 0, 1, hh || 0, mm || 0));
}

// Calendar days since 1970, counted in the clock's zone.
function dayNumber(date) {
  const p = {};
  for (const x of F.ymd.formatToParts(date)) p[x.type] = +x.value;
  return Date.UTC(p.year, p.month - 1, p.day) / 864e5;
}
function dayWord(date) {
  const d = dayNumber(date) - dayNumber(new Date(serverNow()));
  return d === 0 ? 'Today' : d === 1 ? 'Tomorrow' : d === -1 ? 'Yesterday'
    : d > 1 && d < 7 ? F.weekday.format(date) : F.date.format(date);
}
const when = (date) => `${dayWord(date)} ${timeText(F.time, date)}`;
function fromNow(date) {
  const mins = Math.ceil((date - serverNow()) / 6e4);
  if (mins < 1 || mins >= 2880) return '';
  return mins >= 60 ? `in ${Math.floor(mins / 60)} h ${mins % 60} min` : `in ${mins} min`;
}
// "2026-11-28" is a calendar date, not an instant: formatted at noon UTC so no zone shifts the day.
function calendarDate(ymd) {
  const [y, m, d] = String(ymd).split('-').map(Number);
  return F.utcDate.format(new Date(Date.UTC(y, m - 1, d, 12)));
}
const same = (a, b) => a.length === b.length && b.every((d) => a.includes(d));
function repeatMode(days) {
  const set = DAYS.filter((d) => (days || []).includes(d));
  return Object.keys(PRESETS).find((k) => same(set, PRESETS[k])) || 'custom';
}
function repeatText(days) {
  const mode = repeatMode(days);
  if (mode !== 'custom') return { once: 'Once', weekdays: 'Weekdays', weekends: 'Weekends', daily: 'Every day' }[mode];
  return DAYS.filter((d) => days.includes(d)).map((d) => d[0].toUpperCase() + d.slice(1)).join(', ');
}
function clockText(secs) {
  secs = Math.max(0, Math.ceil(secs));
  const two = (n) => String(n).padStart(2, '0');
  const hh = Math.floor(secs / 3600);
  return (hh ? `${hh}:` : '') + `${two(Math.floor(secs / 60) % 60)}:${two(secs % 60)}`;
}

function applyState(s) {
  if (!s || typeof s !== 'object') return;
  state = s;
  const now = Date.parse(s.now);
  if (!Number.isNaN(now)) skew = now - Date.now();
  pairingShown = false;
  $('loading').hidden = $('pairing').hidden = true;
  $('app').hidden = false;
  render();
}

// Redraws a section only when its data changed, and puts focus back on the same control:
// a list redrawn under a screen reader's focus would throw the person to the top.
function section(name, data, draw) {
  const key = JSON.stringify(data);
  if (drawn[name] === key) return;
  drawn[name] = key;
  const focusKey = document.activeElement && document.activeElement.dataset.key;
  draw();
  const again = focusKey && document.querySelector(`[data-key="${CSS.escape(focusKey)}"]`);
  if (again) again.focus();
}

function render() {
  if (!state) return;
  formatters();
  const deps = [state.zone, state.clock24h, dayNumber(new Date(serverNow()))]; // "Tomorrow" changes at midnight
  renderNext();
  renderRinging();
  section('alarms', [state.alarms, deps], () => $('alarm-list').replaceChildren(...(state.alarms || []).map(alarmRow)));
  section('timers', [state.timers], () => $('timer-list').replaceChildren(...(state.timers || []).map(timerRow)));
  section('device', [state.status, state.clockTrusted, state.missed, deps], renderDevice);
  section('settings', [state.settings, hasLight(), state.sounds], renderSettings); // the light's fields follow the status
  section('pairings', [state.pairings, deps], renderPairings);
  section('sounds', [state.soundFiles], renderSounds);
  updateTicking();
}

function renderNext() {
  const n = state.next;
  const el = $('next-time');
  const date = n && new Date(n.date);
  const shown = valid(date) ? timeText(F.time, date) : '';
  el.classList.toggle('none', !shown);
  if (el.dataset.shown !== shown) { // replace nodes only on a change: it is a live region
    el.dataset.shown = shown;
    el.replaceChildren(...(shown ? timeNodes(F.time, date) : ['No alarm set']).filter(Boolean));
  }
  say('next-detail', shown ? dayWord(date) + (n.label ? ` · ${n.label}` : '') : '');
  say('next-in', shown ? fromNow(date) : '');
  $('clock-warning').hidden = state.clockTrusted !== false;
}

function renderRinging() {
  const dlg = $('ringing');
  for (const [id, t] of quieted) if (Date.now() - t > 5000) quieted.delete(id);
  const ringing = (state && state.ringing || []).filter((r) => !quieted.has(r.id));
  if (!ringing.length) return dlg.open && dlg.close();
  const r = ringing[0];
  const isAlarm = r.kind !== 'timer';
  const alarm = isAlarm && (state.alarms || []).find((a) => a.id === r.id);
  const mins = alarm && Math.round(alarm.snoozeSeconds / 60);
  say('ringing-kind', isAlarm ? 'Alarm ringing' : 'Timer finished');
  say('ringing-label', r.label || (isAlarm ? 'Alarm' : 'Timer'));
  say('ringing-more', ringing.length > 1 ? `${ringing.length - 1} more ringing` : '');
  say('ringing-snooze', mins ? `Snooze ${mins} min` : 'Snooze');
  $('ringing-snooze').hidden = !isAlarm || !r.snoozes;
  dlg.dataset.id = r.id;
  if (!dlg.open) {
    dlg.showModal();
    $('ringing-stop').focus();
  }
}

async function ringAction(action) {
  const id = $('ringing').dataset.id;
  // Hidden at once, so a sleepy person does not press twice; it comes back if the clock still rings.
  quieted.set(id, Date.now());
  renderRinging();
  try { // timers ring as alarms do in AlarmKit (one id space), so /api/alarms/ID/stop stops a timer too
    await api('POST', `/api/alarms/${enc(id)}/${action}`);
    toast(action === 'stop' ? 'Stopped' : 'Snoozed');
    if (!streamUp) refresh();
  } catch (e) {
    quieted.delete(id);
    renderRinging(); // back up first, so the error shows inside it
    if (e.status !== 401) showError(e.message);
  }
}

// A row's button: named with the row's subject for screen readers ("Edit" alone is ambiguous in a list).
const rowBtn = (id, testid, text, aria, onclick) => h('button', {
  class: 'btn small', tid: testid, 'data-key': `${id}:${testid}`, 'aria-label': aria, onclick,
}, text);

function alarmNextText(a) {
  const next = new Date(a.next);
  const ok = a.next && valid(next);
  if (a.state === 'alerting') return 'Ringing now';
  if (a.state === 'snoozed') return ok ? `Snoozed until ${timeText(F.time, next)}` : 'Snoozed';
  if (!a.enabled || a.state === 'disabled') return 'Off';
  if (a.skippedDate) return `Skipping ${calendarDate(a.skippedDate)}` + (ok ? ` · then ${when(next)}` : '');
  if (a.state === 'paused') return 'Paused';
  return ok ? `Next: ${when(next)}` : '';
}

function alarmRow(a) {
  const on = !!a.enabled && a.state !== 'disabled';
  const label = a.label || 'Alarm';
  const wall = wallDate(a.time);
  const name = `${label}, ${timeText(F.wall, wall)}`;
  const url = `/api/alarms/${enc(a.id)}`;
  const control = a.mine
    ? h('button', {
      role: 'switch', class: 'switch', 'aria-checked': String(on), 'aria-label': `Alarm ${name}`,
      tid: 'alarm-switch', 'data-key': `${a.id}:switch`, onclick: (e) => toggleAlarm(url, e.currentTarget),
    }, h('span', { class: 'track', 'aria-hidden': 'true' }))
    : h('span', { class: on ? 'tag on' : 'tag' }, on ? 'On' : 'Off');
  return h('li', { tid: 'alarm-row', 'data-id': a.id, class: on ? '' : 'off' },
    h('div', { class: 'row-top' },
      h('div', { class: 'alarm-time', tid: 'alarm-row-time' }, timeNodes(F.wall, wall)), control),
    h('p', {},
      h('span', { tid: 'alarm-row-label' }, label), ' · ',
      h('span', { tid: 'alarm-row-repeat' }, repeatText(a.repeat))),
    h('p', { class: 'hint', tid: 'alarm-row-next' }, alarmNextText(a)),
    !a.mine && h('p', { class: 'hint', tid: 'alarm-row-owner' }, `Set by ${a.owner || 'someone else'} at the clock; read-only here`),
    // As holding STOP at the clock does, on anyone's snooze (the clock's buttons are everyone's).
    a.state === 'snoozed' && h('div', { class: 'row-actions' },
      rowBtn(a.id, 'alarm-end-snooze', 'End snooze', `End the snooze of ${name}`, () => post(`${url}/stop`, 'Snooze ended'))),
    a.mine && h('div', { class: 'row-actions' },
      rowBtn(a.id, 'alarm-edit', 'Edit', `Edit alarm ${name}`, () => openAlarm(a)),
      (a.repeat || []).length && on && !a.skippedDate && rowBtn(a.id, 'alarm-skip', 'Skip next', `Skip the next ring of ${name}`, () => post(`${url}/skip`, 'Next ring skipped')),
      a.skippedDate && on && rowBtn(a.id, 'alarm-unskip', 'Don’t skip', `Don’t skip ${name}`, () => post(`${url}/enable`, 'Skip cancelled')),
      rowBtn(a.id, 'alarm-delete', 'Delete', `Delete alarm ${name}`, async () => {
        if (await confirmBox(`Delete the alarm ${name}?`, 'Delete', 'Keep')) del(url, 'Alarm deleted');
      })));
}

async function toggleAlarm(url, sw) {
  const on = sw.getAttribute('aria-checked') !== 'true';
  sw.setAttribute('aria-checked', on); // move the thumb at once; the stream confirms
  if (!await post(`${url}/${on ? 'enable' : 'disable'}`, on ? 'Alarm on' : 'Alarm off')) sw.setAttribute('aria-checked', !on);
}

function checkDays(days) {
  for (const d of DAYS) $(`day-${d}`).checked = days.includes(d);
}

function openAlarm(a) {
  editing = a;
  say('alarm-dialog-title', a ? 'Edit alarm' : 'New alarm');
  $('alarm-time').value = a ? a.time : '07:00';
  const mode = a ? repeatMode(a.repeat) : 'once';
  $(`repeat-${mode}`).checked = true;
  checkDays(a ? a.repeat : []);
  $('alarm-days').hidden = mode !== 'custom';
  $('alarm-label').value = a ? a.label || '' : '';
  const secs = a ? a.snoozeSeconds : state.settings && state.settings.snoozeSeconds;
  $('alarm-snooze').value = Math.min(60, Math.max(1, Math.round((secs || 540) / 60)));
  const sounds = (state.sounds || []).slice();
  if (a && a.sound && !sounds.includes(a.sound)) sounds.push(a.sound); // saving must not drop a sound the list lost
  $('alarm-sound').replaceChildren(h('option', { value: '' }, defaultSoundText()), ...sounds.map((s) => h('option', { value: s }, s)));
  $('alarm-sound').value = (a && a.sound) || '';
  const s = state.settings;
  $('alarm-fade').value = a && a.fadeSeconds != null ? Math.round(a.fadeSeconds / 60 * 100) / 100 : '';
  $('alarm-fade').placeholder = s ? `${Math.round(s.crescendoSeconds / 60 * 100) / 100}` : '';
  $('alarm-volume').value = a && a.volumePercent != null ? a.volumePercent : '';
  $('alarm-volume').placeholder = s ? `${percentOf(s.volumeDB)}` : '';
  $('alarm-light-box').hidden = !hasLight();
  $('alarm-light').value = a && a.lightLeadSeconds != null ? minutes(a.lightLeadSeconds) : '';
  $('alarm-light').placeholder = s && s.lightLeadSeconds != null ? `${minutes(s.lightLeadSeconds)}` : '';
  hideError();
  $('alarm-dialog').showModal();
  $('alarm-time').focus();
}

async function saveAlarm(ev) {
  ev.preventDefault();
  const time = $('alarm-time').value.slice(0, 5);
  const mode = $('alarm-form').elements.repeat.value || 'once';
  const repeat = mode === 'custom' ? DAYS.filter((d) => $(`day-${d}`).checked) : PRESETS[mode];
  const snooze = Number($('alarm-snooze').value);
  if (!/^\d\d:\d\d$/.test(time)) return showError('Choose a time.');
  if (!repeat.length && mode === 'custom') return showError('Choose at least one day, or pick Once.');
  if (!whole(snooze, 1, 60)) return showError('Snooze must be a whole number of minutes from 1 to 60.');
  const fade = $('alarm-fade').value === '' ? null : Number($('alarm-fade').value);
  if (fade !== null && !(fade >= 0 && fade <= 45)) return showError('Fade in: from 0 to 45 minutes, or empty for the household\'s.');
  const volume = $('alarm-volume').value === '' ? null : Number($('alarm-volume').value);
  if (volume !== null && !whole(volume, 0, 100)) return showError('Volume: a whole percentage from 0 to 100, or empty for the household\'s.');
  const light = $('alarm-light').value === '' ? null : Number($('alarm-light').value);
  if (light !== null && !(light >= 0 && light <= 60)) return showError('Sunrise light: from 0 to 60 minutes, or empty for the household\'s.');
  const body = {
    time, repeat, label: $('alarm-label').value.trim(), snoozeSeconds: snooze * 60, sound: $('alarm-sound').value || null,
    fadeSeconds: fade === null ? null : Math.round(fade * 60), volumePercent: volume,
    lightLeadSeconds: light === null ? null : Math.round(light * 60),
  };
  $('alarm-save').disabled = true;
  const ok = await (editing ? act('PUT', `/api/alarms/${enc(editing.id)}`, body, 'Alarm saved') : post('/api/alarms', 'Alarm added', body));
  $('alarm-save').disabled = false;
  if (ok) $('alarm-dialog').close();
}

function timerRow(t) {
  const label = t.label || 'Timer';
  const paused = t.state === 'paused';
  const digits = h('span', { 'aria-hidden': 'true', tid: 'timer-countdown', 'data-name': label });
  // Screen readers get a polite line that changes once a minute, not sixty times.
  const spoken = h('span', { class: 'vh', 'aria-live': 'polite', 'aria-atomic': 'true' });
  const ends = Date.parse(t.endsAt);
  if (t.state === 'countdown' && !Number.isNaN(ends)) digits.dataset.ends = ends;
  else digits.dataset.left = t.state === 'alerting' ? 0 : t.remainingSeconds || 0;
  const url = `/api/timers/${enc(t.id)}`;
  drawCountdown(digits, spoken);
  return h('li', { tid: 'timer-row', 'data-id': t.id, class: paused ? 'paused' : '' },
    h('div', { class: 'row-top' },
      h('strong', { tid: 'timer-name' }, label),
      h('span', { class: 'hint', tid: 'timer-state' }, paused ? 'Paused' : t.state === 'alerting' ? 'Ringing' : '')),
    h('p', { class: 'countdown' }, digits, spoken),
    h('div', { class: 'row-actions' },
      paused && rowBtn(t.id, 'timer-resume', 'Resume', `Resume ${label}`, () => post(`${url}/resume`, 'Timer resumed')),
      t.state === 'countdown' && rowBtn(t.id, 'timer-pause', 'Pause', `Pause ${label}`, () => post(`${url}/pause`, 'Timer paused')),
      rowBtn(t.id, 'timer-cancel', 'Cancel', `Cancel timer ${label}`, () => del(url, 'Timer cancelled'))));
}

function drawCountdown(digits, spoken) {
  const left = digits.dataset.ends ? (digits.dataset.ends - serverNow()) / 1000 : +digits.dataset.left;
  const mins = Math.ceil(left / 60);
  setText(digits, clockText(left));
  setText(spoken, `${digits.dataset.name}: ` + (left <= 0 ? 'time is up' : mins <= 1 ? 'under a minute left' : `${mins} minutes left`));
}

const tick = () => { for (const el of document.querySelectorAll('[data-ends]')) drawCountdown(el, el.nextSibling); };

// Ticks each second only while a countdown is on screen, to spare the phone's battery.
function updateTicking() {
  if (document.hidden || !document.querySelector('#timer-list [data-ends]')) stopTicking();
  else if (!tickTimer) tickTimer = setInterval(tick, 1000);
}
function stopTicking() {
  clearInterval(tickTimer);
  tickTimer = 0;
}

async function startTimer(minutes) {
  if (!whole(minutes, 1, 1440)) {
    showError('Minutes must be a whole number from 1 to 1440.');
    return $('timer-minutes').focus();
  }
  const label = $('timer-label').value.trim() || `${minutes} min timer`;
  if (await post('/api/timers', `Timer started: ${minutes} min`, { seconds: minutes * 60, label })) $('timer-label').value = '';
}

const statusRow = (name, ok, detail, key) => h('li', { class: 'part', tid: 'status-row', 'data-name': key },
  h('span', {}, name), h('span', { class: ok ? 'ok' : 'bad' }, ok ? '✓ Working' : '✗ Problem'), detail && h('span', { class: 'hint' }, detail));

// What the clock's time source (alarmd's status `timeSource`) means to the household.
const TIME_SOURCES = {
  ntp: 'From the internet (NTP)',
  rtc: 'From the clock\'s battery-backed clock',
  phone: 'Set from a phone',
  restored: 'Not verified: the time saved before the last power-off, behind by as long as it was off',
  unset: 'Not set',
};

// The clock's time beside this phone's, and the offer to set it from the phone when nothing
// confirmed the clock's time or the two differ by more than 30 s (alarmd refuses what NTP
// contradicts, and says why).
function clockRow(st) {
  const clock = new Date(serverNow()), phone = new Date();
  const apart = Math.abs(skew) / 1000;
  const offer = st.timeSource === 'restored' || st.timeSource === 'unset' || apart > 30;
  const hhmmss = (d) => d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return h('li', { class: 'part', tid: 'clock-time' },
    h('span', {}, 'Clock'), h('span', { class: 'hint' }, `${hhmmss(clock)} · this phone ${hhmmss(phone)}`),
    offer && h('button', { class: 'btn small', tid: 'set-clock', onclick: () => post('/api/time', 'Clock set to this phone’s time', { time: Date.now() / 1000 }) },
      'Set the clock to this phone’s time'));
}

function renderDevice() {
  if (!state.status) { // a clock that does not report its parts: say so, rather than guess faults
    $('status-list').replaceChildren(h('li', { class: 'hint' }, 'The clock does not report its parts.'));
    say('device-summary', 'Not known');
    $('device-summary').className = 'hint';
  }
  const st = state.status || {};
  const parts = st.parts || [];
  const clockSet = st.clock === 'trusted' && state.clockTrusted !== false;
  // Ringing on a time nothing confirmed (after a power cut with no network) is a problem to see.
  const confirmed = !st.timeSource || ['ntp', 'rtc', 'phone'].includes(st.timeSource);
  const clockOk = clockSet && confirmed;
  const clockDetail = !clockSet ? 'Not set: alarms will not ring' : (TIME_SOURCES[st.timeSource] || '');
  const storageOk = st.storage === 'ok';
  if (state.status) {
    $('status-list').replaceChildren(
      ...parts.map((p) => statusRow(PART_NAMES[p.name] || p.name, p.ok, p.detail, p.name)),
      statusRow('Time', clockOk, clockDetail, 'clock'),
      clockRow(st),
      statusRow('Storage', storageOk, st.storageDetail || (storageOk ? '' : st.storage), 'storage'));
    const bad = parts.filter((p) => !p.ok).length + !clockOk + !storageOk;
    say('device-summary', bad ? `${bad} problem${bad > 1 ? 's' : ''}` : 'All working');
    $('device-summary').className = bad ? 'bad' : 'hint';
  }
  const missed = (state.missed || []).map((m) => h('li', { tid: 'missed-row' },
    `${m.label || 'Alarm'} · ${valid(new Date(m.date)) ? when(new Date(m.date)) : ''}${m.why ? ` · ${m.why}` : ''}`));
  $('missed-list').replaceChildren(...(missed.length ? missed : [h('li', { class: 'hint' }, 'None')]));
}

// Volumes read as alsamixer shows them: a percentage of 10^(dB/60) between the low and high
// end of the clock's volume scale (its card's own mixer range where the volume is set there,
// else -60 to 0 dB; alarmd's VolumePercent), so 50 % is -15.6 dB on -60..0, not the
// near-silence of -30 dB. alarmd takes dB.
const volumeScale = () => (state && state.settings && state.settings.volumeScale) || [-60, 0];
function percentOf(db) {
  const [lo, hi] = volumeScale(), floor = Math.pow(10, (lo - hi) / 60);
  return Math.round((Math.pow(10, (Math.min(hi, Math.max(lo, db)) - hi) / 60) - floor) / (1 - floor) * 100);
}
function decibelsOf(pct) {
  const [lo, hi] = volumeScale(), floor = Math.pow(10, (lo - hi) / 60);
  const db = Math.round((hi + 60 * Math.log10(floor + Math.min(100, Math.max(0, pct)) / 100 * (1 - floor))) * 10) / 10;
  return Math.min(hi, Math.max(lo, db));
}
const showVolume = () => say('set-volume-out', `${$('set-volume').value} %`);
// Seconds as minutes, to a hundredth: 20 s shows 0.33 and is saved as 20 s again.
const minutes = (seconds) => Math.round(seconds / 60 * 100) / 100;
// The clock has a sunrise light when its status lists one.
const hasLight = () => !!(state.status && (state.status.parts || []).some((p) => p.name === 'light'));

function renderSettings() {
  const s = state.settings;
  if (!s || settingsDirty) return; // never overwrite what the person is typing
  $('set-volume').value = percentOf(s.volumeDB);
  $('set-crescendo').value = Math.round(s.crescendoSeconds / 60 * 100) / 100;
  $('set-snooze').value = Math.round(s.snoozeSeconds / 60);
  $('set-autosilence').value = Math.round(s.autoSilenceSeconds / 60);
  $('light-settings').hidden = !hasLight();
  $('set-light-lead').value = s.lightLeadSeconds != null ? minutes(s.lightLeadSeconds) : 20;
  $('set-light-after').value = s.lightAfterStop || 'off';
  const chosen = s.defaultSound && s.defaultSound !== 'tone' ? s.defaultSound : 'tone';
  const names = (state.sounds || []).includes(chosen) || chosen === 'tone' ? state.sounds || [] : [...(state.sounds || []), chosen];
  $('set-default-sound').replaceChildren(h('option', { value: 'tone' }, 'Built-in tone'), ...names.map((n) => h('option', { value: n }, n)));
  $('set-default-sound').value = chosen;
  const night = s.nightHours && s.nightHours !== 'off' ? s.nightHours.split('-') : ['', ''];
  $('set-night-start').value = night[0];
  $('set-night-end').value = night[1];
  showVolume();
}

function readSettings() {
  const n = (id) => Number($(id).value);
  const bad = (id, lo, hi) => $(id).value === '' || !whole(n(id), lo, hi);
  const range = [['set-snooze', 1, 60], ['set-autosilence', 0, 60]].find((r) => bad(...r));
  if (range) return showError(`${$(range[0]).labels[0].textContent}: a whole number, please.`);
  const fade = n('set-crescendo');
  if ($('set-crescendo').value === '' || !(fade >= 0 && fade <= 45)) return showError('Fade in: from 0 to 45 minutes, please.');
  const lead = n('set-light-lead');
  if ($('set-light-lead').value === '' || !(lead >= 0 && lead <= 60)) return showError('Sunrise light: from 0 to 60 minutes, please.');
  const [from, until] = [$('set-night-start').value.slice(0, 5), $('set-night-end').value.slice(0, 5)];
  if ((from === '') !== (until === '')) return showError('Night: both times, or neither for no night.');
  if (from && from === until) return showError('Night: it must end at another time than it starts.');
  return {
    volumeDB: decibelsOf(n('set-volume')), crescendoSeconds: Math.round(fade * 60), snoozeSeconds: n('set-snooze') * 60,
    autoSilenceSeconds: n('set-autosilence') * 60, nightHours: from ? `${from}-${until}` : 'off',
    lightLeadSeconds: Math.round(lead * 60), lightAfterStop: $('set-light-after').value, defaultSound: $('set-default-sound').value,
  };
}

async function saveSettings(ev) {
  ev.preventDefault();
  const body = readSettings();
  if (!body) return;
  $('settings-save').disabled = true;
  if (await act('PUT', '/api/settings', body, 'Settings saved')) settingsDirty = false;
  $('settings-save').disabled = false;
}

function renderPairings() {
  $('pairing-list').replaceChildren(...(state.pairings || []).map((p) => {
    const seen = new Date(p.lastSeen);
    return h('li', { tid: 'pairing-row', 'data-id': p.id },
      h('div', { class: 'row-top' },
        h('strong', { tid: 'pairing-name' }, p.name),
        p.current && h('span', { class: 'tag on', tid: 'pairing-current' }, 'This phone')),
      p.lastSeen && valid(seen) && h('p', { class: 'hint' }, `Last seen ${when(seen)}`),
      h('div', { class: 'row-actions' },
        rowBtn(p.id, 'pairing-revoke', p.current ? 'Unpair this phone' : 'Revoke', p.current ? `Unpair this phone, ${p.name}` : `Revoke ${p.name}`, () => revoke(p))));
  }));
}

// The household's sounds and the package's: size, who uses them, a preview, and a delete for
// the household's that no alarm rings with.
function renderSounds() {
  const files = state.soundFiles || [];
  say('sounds-summary', files.length ? `${files.length} sound${files.length === 1 ? '' : 's'}` : 'only the built-in tone');
  $('sound-list').replaceChildren(...files.map((f) => {
    const detail = [f.origin === 'household' ? 'added' : 'comes with the clock', size(f.bytes)];
    if (f.usedBy) detail.push(`used by ${f.usedBy} alarm${f.usedBy === 1 ? '' : 's'}`);
    return h('li', { tid: 'sound-row', 'data-name': f.name },
      h('strong', { tid: 'sound-name' }, f.name),
      h('p', { class: 'hint', tid: 'sound-detail' }, detail.join(' · ')),
      h('div', { class: 'row-actions' },
        rowBtn(f.name, 'sound-play', 'Play 5 s', `Play ${f.name} for five seconds`, () => playSound(f.name)),
        f.origin === 'household' && rowBtn(f.name, 'sound-delete', 'Delete', `Delete ${f.name}`, () => deleteSound(f))));
  }));
}

// What an alarm with no sound of its own rings with: the household's default.
function defaultSoundText() {
  const d = state.settings && state.settings.defaultSound;
  return d && d !== 'tone' ? `The household's sound (${d})` : 'Built-in tone';
}

const size = (bytes) => bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1e3))} kB`;

function playSound(name, volumePercent) {
  return post(`/api/sounds/${enc(name)}/play`, 'Playing for 5 seconds…', volumePercent == null ? undefined : { volumePercent });
}

async function deleteSound(f) {
  if (f.usedBy) return showError(`${f.name} is the sound of ${f.usedBy} alarm${f.usedBy === 1 ? '' : 's'}: choose another sound for ${f.usedBy === 1 ? 'it' : 'them'} first.`);
  if (!await confirmBox(`Delete “${f.name}”?`, 'Delete', 'Keep')) return;
  del(`/api/sounds/${enc(f.name)}`, 'Deleted');
}

// A name the clock keeps: letters, digits and a few signs (anything else becomes "-"), at most
// 100 characters and 200 bytes, its extension kept, never starting with a dot or a space.
function soundName(file) {
  const dot = file.lastIndexOf('.');
  const ext = dot > 0 ? file.slice(dot) : '';
  let stem = [...(dot > 0 ? file.slice(0, dot) : file).replace(/[^\p{Alphabetic}0-9 \-_.,'()+&]/gu, '-')];
  while (stem.length && (stem.length + ext.length > 100 || new TextEncoder().encode(stem.join('') + ext).length > 200)) stem.pop();
  return (stem.join('').replace(/^[. ]+/, '').trim() || 'sound') + ext.toLowerCase();
}
const UPLOAD_PART = 256 * 1024; // alarm-web's limit for one part

// Sends the chosen file in parts; each answer names the upload and says how much the clock
// holds, so a lost part is sent again from there (and from the start if the clock forgot the
// upload). The clock checks the whole file before keeping it.
async function addSound(ev) {
  ev.preventDefault();
  const file = $('sound-file').files[0];
  if (!file) return showError('Choose a sound file first.');
  const name = soundName(file.name);
  if (!/\.(wav|flac|ogg|oga|opus|mp3)$/.test(name)) return showError('The clock plays WAV, FLAC, Ogg, Opus and MP3 files.');
  if (file.size > 128 * 1024 * 1024) return showError('That file is larger than 128 MiB.');
  const bar = $('sound-progress');
  $('sound-add').disabled = true;
  bar.hidden = false;
  let offset = 0, upload = null, stalls = 0;
  try {
    for (;;) {
      const end = Math.min(file.size, offset + UPLOAD_PART), final = end === file.size;
      const query = `offset=${offset}${upload ? `&upload=${enc(upload)}` : ''}&final=${final ? 1 : 0}`;
      let res, data = null;
      try {
        res = await fetch(`/api/sounds/${enc(name)}?${query}`, {
          method: 'PUT', cache: 'no-store', headers: { 'Content-Type': 'application/octet-stream' }, body: file.slice(offset, end),
        });
      } catch (e) {
        if (++stalls > 5) throw new Error('Can’t reach the clock. Is this phone on the home Wi-Fi?');
        await sleep(1000);
        continue;
      }
      try { data = await res.json(); } catch (e) { /* the status says enough */ }
      if (!res.ok) {
        if (res.status === 401) showPairing();
        throw new Error((data && data.error) || `The clock answered with error ${res.status}.`);
      }
      if (data.kept) break;
      if (data.received > end) throw new Error('The clock holds more of this sound than was sent: try again.');
      if (data.received === end) stalls = 0;
      else if (++stalls > 5) throw new Error('The clock keeps losing this sound: try again.');
      [offset, upload] = [data.received, data.upload || null];
      bar.value = Math.round(offset / file.size * 100);
    }
    hideError();
    toast(`Added ${name}`);
    $('sound-form').reset();
    if (!streamUp) refresh();
  } catch (e) {
    showError(e.message);
  } finally {
    $('sound-add').disabled = false;
    bar.hidden = true;
    bar.value = 0;
  }
}

async function revoke(p) {
  const q = `${p.current ? 'Unpair this phone' : `Revoke “${p.name}”`}? It will need to pair again at the clock.`;
  if (!await confirmBox(q, p.current ? 'Unpair' : 'Revoke', 'Cancel')) return;
  if (await del(`/api/pairings/${enc(p.id)}`, 'Revoked') && p.current) refresh(); // its 401 shows pairing
}

// A confirm with the page's own big buttons (window.confirm is small and stops the page drawing).
function confirmBox(text, yes, no) {
  const dlg = $('confirm-dialog');
  say('confirm-text', text);
  say('confirm-yes', yes);
  say('confirm-no', no);
  dlg.returnValue = '';
  dlg.showModal();
  $('confirm-no').focus(); // the safe answer is the default for a half-asleep thumb
  return new Promise((resolve) => dlg.addEventListener('close', () => resolve(dlg.returnValue === 'yes'), { once: true }));
}

// The seven day toggles; screen readers get the full day names.
$('alarm-days').lastElementChild.append(...DAYS.flatMap((d, i) => [
  h('input', { type: 'checkbox', id: `day-${d}`, value: d, 'aria-label': 'Monday Tuesday Wednesday Thursday Friday Saturday Sunday'.split(' ')[i] }),
  h('label', { for: `day-${d}` }, d[0].toUpperCase() + d.slice(1))]));

for (const el of document.querySelectorAll('[id]')) el.dataset.testid ||= el.id;
const listen = (id, type, fn) => $(id).addEventListener(type, fn);
listen('pair-form', 'submit', pair);
listen('pair-retry', 'click', () => { hideError(); pairForm(); $('pair-name').focus(); });
listen('error-dismiss', 'click', hideError);
listen('ringing-stop', 'click', () => ringAction('stop'));
listen('ringing-snooze', 'click', () => ringAction('snooze'));
listen('ringing', 'cancel', (e) => e.preventDefault()); // Escape must not hide a ringing alarm
listen('add-alarm', 'click', () => openAlarm(null));
listen('alarm-form', 'submit', saveAlarm);
listen('alarm-cancel', 'click', () => $('alarm-dialog').close());
listen('alarm-repeat', 'change', (e) => {
  const mode = e.target.value;
  $('alarm-days').hidden = mode !== 'custom';
  if (mode !== 'custom') checkDays(PRESETS[mode]); // "Choose days" then starts from the last preset
});
listen('confirm-yes', 'click', () => $('confirm-dialog').close('yes'));
listen('confirm-no', 'click', () => $('confirm-dialog').close('no'));
for (const b of document.querySelectorAll('[data-minutes]')) b.addEventListener('click', () => startTimer(+b.dataset.minutes));
listen('timer-form', 'submit', (e) => { e.preventDefault(); startTimer(Number($('timer-minutes').value)); });
listen('settings-form', 'input', (e) => { settingsDirty = true; if (e.target.id === 'set-volume') showVolume(); });
listen('settings-form', 'submit', saveSettings);
listen('settings-try', 'click', () => { const b = readSettings(); if (b) post('/api/settings/try', 'Playing for 3 seconds…', b); });
listen('sound-form', 'submit', addSound);
listen('alarm-sound-play', 'click', () => {
  const d = state.settings && state.settings.defaultSound;
  const name = $('alarm-sound').value || (d && d !== 'tone' ? d : ''), volume = $('alarm-volume').value;
  if (!name) return showError('The built-in tone: play it from the settings (Play for 3 s).');
  playSound(name, volume === '' ? null : Number(volume));
});

document.addEventListener('visibilitychange', () => {
  if (document.hidden) return stopTicking();
  if (!state || pairingShown) return;
  render();
  if (!es) openStream(); // a phone waking from sleep may have lost the stream without noticing
  else if (!streamUp) refresh();
});
// Relative words ("Tomorrow", "in 7 h") age even when nothing changes at the clock.
setInterval(() => { if (state && !document.hidden) render(); }, 30000);

start();
