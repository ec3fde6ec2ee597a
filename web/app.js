/*
 * alarmd's phone page: pairing, alarms, timers, device status, settings, paired phones.
 * Everything is drawn from the latest /api/state (first by GET, then from the /api/events stream).
 *
 * Test hooks for browser tests. Unique elements have id = data-testid:
 *   loading, error-banner, error-text, error-dismiss, toast,
 *   pairing, pair-name, pair-button, pair-wait, pair-code, pair-instructions, pair-status, pair-retry,
 *   app, next-alarm, next-time, next-detail, next-in, clock-warning, offline,
 *   add-alarm, alarm-list, alarm-empty,
 *   alarm-dialog, alarm-time, repeat-once, repeat-weekdays, repeat-weekends, repeat-daily, repeat-custom,
 *   alarm-days, day-mon … day-sun, alarm-label, alarm-snooze, alarm-sound, alarm-save, alarm-cancel,
 *   timer-minutes, timer-label, timer-start, timer-list,
 *   device, device-summary, status-list, missed-list,
 *   settings, set-volume, set-volume-out, set-crescendo, set-snooze, set-autosilence, settings-try, settings-save,
 *   phones, pairing-list,
 *   ringing, ringing-label, ringing-more, ringing-stop, ringing-snooze,
 *   confirm-dialog, confirm-text, confirm-yes, confirm-no.
 * data-testid only: alarm-error, ringing-kind, ringing-error, timer-quick-1, timer-quick-5, timer-quick-10.
 * Repeated rows carry data-testid and data-id (the server's id):
 *   li[data-testid=alarm-row][data-id]: alarm-row-time, alarm-row-label, alarm-row-repeat, alarm-row-next, alarm-row-owner,
 *     alarm-switch (role=switch, aria-checked), alarm-edit, alarm-skip, alarm-unskip, alarm-delete
 *   li[data-testid=timer-row][data-id]: timer-name, timer-countdown (mm:ss), timer-pause, timer-resume, timer-cancel
 *   li[data-testid=pairing-row][data-id]: pairing-name, pairing-current, pairing-revoke
 *   li[data-testid=status-row][data-name], li[data-testid=missed-row]
 */
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
  const DAY_SHORT = { mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat', sun: 'Sun' };
  const PRESETS = { once: [], weekdays: DAYS.slice(0, 5), weekends: ['sat', 'sun'], daily: DAYS };
  const PART_NAMES = { sound: 'Sound', display: 'Display', buttons: 'Buttons', led: 'Light' };

  let state = null;        // the latest state from the server
  let skew = 0;            // server clock minus this phone's clock, in ms
  let es = null;           // the EventSource, while one is open
  let streamUp = false;
  let pairingShown = false;
  let pairGen = 0;         // bumped to abandon a pairing wait loop
  let rendered = {};       // section name -> JSON of what it was last drawn from
  let editing = null;      // the alarm open in the form, null for a new one
  let settingsDirty = false;
  let tickTimer = 0;
  const quieted = new Map(); // ringing ids stopped/snoozed here, hidden until the server catches up

  // ---------- small helpers

  // Builds elements. Strings become text nodes, so server data can never become markup.
  function h(tag, props, ...kids) {
    const el = document.createElement(tag);
    for (const k in props) {
      const v = props[k];
      if (v == null || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? '' : v);
    }
    for (const c of kids.flat()) if (c != null && c !== false && c !== '') el.append(c);
    return el;
  }
  // Changing text only when it differs keeps live regions from repeating themselves.
  function setText(el, s) { if (el.textContent !== s) el.textContent = s; }
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const serverNow = () => Date.now() + skew;
  const enc = encodeURIComponent;

  let toastTimer = 0;
  function toast(msg) {
    setText($('toast'), msg);
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => setText($('toast'), ''), 3500);
  }

  // Errors go where the person is looking: into the open dialog (the banner would be under it), else the banner.
  function errorBox() {
    if ($('ringing').open) return $('ringing').querySelector('.dlg-error');
    if ($('alarm-dialog').open) return $('alarm-dialog').querySelector('.dlg-error');
    return null;
  }
  function showError(msg) {
    const box = errorBox();
    if (box) { box.textContent = msg; box.hidden = false; return; }
    $('error-text').textContent = msg;
    $('error-banner').hidden = false;
  }
  function hideError() {
    $('error-banner').hidden = true;
    for (const b of document.querySelectorAll('.dlg-error')) b.hidden = true;
  }

  // ---------- talking to the clock

  class ApiError extends Error {
    constructor(msg, status) { super(msg); this.status = status; }
  }

  // Resolves to {status, data} for 2xx; throws ApiError otherwise. A 401 also switches to the pairing screen.
  async function api(method, path, body) {
    const opts = { method, cache: 'no-store', credentials: 'same-origin', headers: {} };
    if (method !== 'GET') opts.headers['Content-Type'] = 'application/json';
    if (body !== undefined) opts.body = JSON.stringify(body);
    let res;
    try {
      res = await fetch(path, opts);
    } catch (e) {
      throw new ApiError('Can’t reach the clock. Is this phone on the home Wi-Fi?', 0);
    }
    let data = null;
    try { data = await res.json(); } catch (e) { /* empty or not JSON: the status says enough */ }
    if (res.ok) return { status: res.status, data };
    if (res.status === 401 && !path.startsWith('/api/pair')) {
      showPairing();
      throw new ApiError('This phone is not paired with the clock.', 401);
    }
    throw new ApiError((data && data.error) || `The clock answered with error ${res.status}.`, res.status);
  }

  // A change made from the page. The new state arrives on the stream; fetch it only if the stream is down.
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
    else if (!pairingShown) setTimeout(start, 5000); // the clock may be rebooting: keep trying
  }

  function openStream() {
    if (es) es.close();
    const src = new EventSource('/api/events');
    es = src;
    src.addEventListener('open', () => { streamUp = true; $('offline').hidden = true; });
    src.addEventListener('state', (e) => {
      let s;
      try { s = JSON.parse(e.data); } catch (err) { return; }
      applyState(s);
    });
    src.addEventListener('error', () => {
      if (src !== es) return;
      streamUp = false;
      $('offline').hidden = false;
      if (src.readyState !== EventSource.CLOSED) return; // EventSource reconnects by itself
      // The browser gave up, which it does on a non-200 answer such as 401: ask /api/state why.
      es = null;
      refresh().then((ok) => {
        if (!pairingShown) setTimeout(() => { if (!es && !pairingShown) openStream(); }, ok ? 2000 : 5000);
      });
    });
  }

  function closeStream() {
    if (es) es.close();
    es = null;
    streamUp = false;
  }

  // ---------- pairing

  function guessName() {
    const ua = navigator.userAgent;
    if (/iPhone/.test(ua)) return 'iPhone';
    if (/iPad/.test(ua)) return 'iPad';
    if (/Android/.test(ua)) return /Mobile/.test(ua) ? 'Android phone' : 'Android tablet';
    if (/Macintosh/.test(ua)) return 'Mac';
    if (/Windows/.test(ua)) return 'Windows computer';
    if (/Linux/.test(ua)) return 'Linux computer';
    return 'Phone';
  }

  function showPairing() {
    if (pairingShown) return;
    pairingShown = true;
    closeStream();
    // Forget everything drawn for the paired browser, so nothing of the alarms stays in the page.
    state = null;
    rendered = {};
    for (const id of ['alarm-list', 'timer-list', 'status-list', 'missed-list', 'pairing-list']) $(id).replaceChildren();
    for (const d of document.querySelectorAll('dialog[open]')) d.close();
    stopTicking();
    $('loading').hidden = true;
    $('app').hidden = true;
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
    if (name.length < 1 || name.length > 32) {
      showError('Give this phone a name of 1 to 32 characters.');
      $('pair-name').focus();
      return;
    }
    $('pair-button').disabled = true;
    try {
      const { data } = await api('POST', '/api/pair', { name });
      hideError();
      const code = String(data.code);
      setText($('pair-code'), code);
      $('pair-code').setAttribute('aria-label', `Code ${code.split('').join(' ')}`); // read digit by digit
      setText($('pair-instructions'), `Check that the clock shows ${code}, then press SNOOZE on the clock to allow, STOP to refuse.`);
      setText($('pair-status'), 'Waiting for an answer at the clock…');
      $('pair-retry').hidden = true;
      $('pair-form').hidden = true;
      $('pair-wait').hidden = false;
      $('pair-instructions').setAttribute('tabindex', '-1');
      $('pair-instructions').focus(); // screen readers read the instruction straight away
      waitForClock(++pairGen);
    } catch (e) {
      showError(e.message);
    } finally {
      $('pair-button').disabled = false;
    }
  }

  async function waitForClock(gen) {
    let failures = 0;
    while (gen === pairGen) {
      const began = Date.now();
      let r;
      try {
        r = await api('POST', '/api/pair/wait');
      } catch (e) {
        if (gen !== pairGen) return;
        if (e.status === 0 && ++failures < 10) { // a Wi-Fi blip should not cost the code
          setText($('pair-status'), 'Can’t reach the clock; still trying…');
          await sleep(3000);
          continue;
        }
        setText($('pair-status'), 'Not paired.');
        showError(e.message);
        $('pair-retry').hidden = false;
        return;
      }
      if (gen !== pairGen) return;
      failures = 0;
      if (r.status === 200 && r.data && r.data.paired) {
        setText($('pair-status'), 'Paired.');
        pairGen++;
        pairingShown = false;
        start();
        return;
      }
      setText($('pair-status'), 'Waiting for an answer at the clock…');
      // The server holds each wait ~25 s; never spin if it answers at once.
      if (Date.now() - began < 1000) await sleep(1000);
    }
  }

  // ---------- time formatting, always in the clock's zone

  let fmtKey = '';
  let F = {};
  function fmt(opts, zone) {
    try { return new Intl.DateTimeFormat('en-GB', { ...opts, timeZone: zone }); } catch (e) {
      return new Intl.DateTimeFormat('en-GB', opts); // unknown zone name: the phone's own zone beats nothing
    }
  }
  function formatters() {
    const key = `${state.zone}|${state.clock24h}`;
    if (key === fmtKey) return F;
    fmtKey = key;
    const z = state.zone || undefined;
    const t = state.clock24h === false
      ? { hour: 'numeric', minute: '2-digit', hourCycle: 'h12' }
      : { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
    F = {
      time: fmt(t, z),
      wallTime: fmt(t, 'UTC'), // for "07:30" wall times, which have no zone
      ymd: fmt({ year: 'numeric', month: 'numeric', day: 'numeric' }, z),
      weekday: fmt({ weekday: 'short' }, z),
      date: fmt({ weekday: 'short', day: 'numeric', month: 'short' }, z),
      utcDate: fmt({ weekday: 'short', day: 'numeric', month: 'short' }, 'UTC'),
    };
    return F;
  }

  // [main, period]: "7:30" and "am" apart, so the big clock can draw "am" smaller.
  function timeParts(formatter, date) {
    let main = '';
    let period = '';
    for (const p of formatter.formatToParts(date)) {
      if (p.type === 'dayPeriod') period = p.value;
      else main += p.value;
    }
    return [main.trim(), period];
  }
  function timeNodes(formatter, date) {
    const [main, period] = timeParts(formatter, date);
    return [main, period && h('small', {}, period)];
  }
  const timeText = (formatter, date) => timeParts(formatter, date).join(' ').trim();
  function wallDate(hhmm) {
    const [hh, mm] = String(hhmm).split(':').map(Number);
    return new Date(Date.UTC(2000, 0, 1, hh || 0, mm || 0));
  }

  // Whole calendar days between now and date, counted in the clock's zone.
  function dayNumber(date) {
    const p = {};
    for (const x of formatters().ymd.formatToParts(date)) p[x.type] = Number(x.value);
    return Date.UTC(p.year, p.month - 1, p.day) / 86400000;
  }
  function dayWord(date) {
    const d = dayNumber(date) - dayNumber(new Date(serverNow()));
    if (d === 0) return 'Today';
    if (d === 1) return 'Tomorrow';
    if (d === -1) return 'Yesterday';
    if (d > 1 && d < 7) return F.weekday.format(date);
    return F.date.format(date);
  }
  const when = (date) => `${dayWord(date)} ${timeText(F.time, date)}`;
  function fromNow(date) {
    const mins = Math.ceil((date - serverNow()) / 60000);
    if (mins < 1 || mins >= 48 * 60) return '';
    const hrs = Math.floor(mins / 60);
    return hrs ? `in ${hrs} h ${mins % 60} min` : `in ${mins} min`;
  }
  // "2026-11-28" is a calendar date, not an instant: format it at noon UTC so no zone can shift the day.
  function calendarDate(ymd) {
    const [y, m, d] = String(ymd).split('-').map(Number);
    return F.utcDate.format(new Date(Date.UTC(y, m - 1, d, 12)));
  }
  function repeatText(days) {
    const set = DAYS.filter((d) => (days || []).includes(d));
    const is = (list) => set.length === list.length && list.every((d) => set.includes(d));
    if (!set.length) return 'Once';
    if (is(PRESETS.daily)) return 'Every day';
    if (is(PRESETS.weekdays)) return 'Weekdays';
    if (is(PRESETS.weekends)) return 'Weekends';
    return set.map((d) => DAY_SHORT[d]).join(', ');
  }
  function repeatMode(days) {
    const t = repeatText(days);
    return { Once: 'once', 'Every day': 'daily', Weekdays: 'weekdays', Weekends: 'weekends' }[t] || 'custom';
  }
  function clockText(secs) {
    secs = Math.max(0, Math.ceil(secs));
    const hh = Math.floor(secs / 3600);
    const mm = Math.floor(secs / 60) % 60;
    const ss = String(secs % 60).padStart(2, '0');
    return hh ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${String(mm).padStart(2, '0')}:${ss}`;
  }

  // ---------- drawing

  function applyState(s) {
    if (!s || typeof s !== 'object') return;
    state = s;
    const now = Date.parse(s.now);
    if (!Number.isNaN(now)) skew = now - Date.now();
    pairingShown = false;
    $('loading').hidden = true;
    $('pairing').hidden = true;
    $('app').hidden = false;
    render();
  }

  // Redraws a section only when its data changed, and puts focus back on the same control afterwards
  // (a list redrawn under a screen reader's or keyboard's focus would otherwise throw the person to the top).
  function section(name, data, draw) {
    const key = JSON.stringify(data);
    if (rendered[name] === key) return;
    rendered[name] = key;
    const focusKey = document.activeElement && document.activeElement.dataset.key;
    draw();
    if (focusKey) {
      const again = document.querySelector(`[data-key="${CSS.escape(focusKey)}"]`);
      if (again && again !== document.activeElement) again.focus();
    }
  }

  function render() {
    if (!state) return;
    formatters();
    const today = dayNumber(new Date(serverNow())); // relative words ("Tomorrow") change at midnight
    const fmtDeps = [state.zone, state.clock24h, today];
    renderNext();
    renderRinging();
    section('alarms', [state.alarms, fmtDeps], renderAlarms);
    section('timers', [state.timers], renderTimers);
    section('device', [state.status, state.clockTrusted, state.missed, fmtDeps], renderDevice);
    section('settings', [state.settings], renderSettings);
    section('pairings', [state.pairings, fmtDeps], renderPairings);
    updateTicking();
  }

  function renderNext() {
    const n = state.next;
    const el = $('next-time');
    const date = n && new Date(n.date);
    if (!date || Number.isNaN(+date)) {
      el.classList.add('none');
      setText(el, 'No alarm set');
      setText($('next-detail'), '');
      setText($('next-in'), '');
    } else {
      el.classList.remove('none');
      const [main, period] = timeParts(F.time, date);
      if (el.dataset.shown !== main + period) { // replace the nodes only on a change (live region)
        el.dataset.shown = main + period;
        el.replaceChildren(...timeNodes(F.time, date).filter(Boolean));
      }
      setText($('next-detail'), dayWord(date) + (n.label ? ` · ${n.label}` : ''));
      setText($('next-in'), fromNow(date));
    }
    if (!date) el.dataset.shown = '';
    $('clock-warning').hidden = state.clockTrusted !== false;
  }

  function renderRinging() {
    const dlg = $('ringing');
    const now = Date.now();
    for (const [id, t] of quieted) if (now - t > 5000) quieted.delete(id);
    const ringing = (state && state.ringing || []).filter((r) => !quieted.has(r.id));
    if (!ringing.length) {
      if (dlg.open) dlg.close();
      return;
    }
    const r = ringing[0];
    const isAlarm = r.kind !== 'timer';
    setText($('ringing-title'), isAlarm ? 'Alarm ringing' : 'Timer finished');
    setText($('ringing-label'), r.label || (isAlarm ? 'Alarm' : 'Timer'));
    setText($('ringing-more'), ringing.length > 1 ? `${ringing.length - 1} more ringing` : '');
    $('ringing-stop').dataset.id = r.id;
    $('ringing-snooze').dataset.id = r.id;
    $('ringing-snooze').hidden = !isAlarm;
    const alarm = (state.alarms || []).find((a) => a.id === r.id);
    const mins = alarm && Math.round(alarm.snoozeSeconds / 60);
    setText($('ringing-snooze'), mins ? `Snooze ${mins} min` : 'Snooze');
    if (!dlg.open) {
      dlg.showModal();
      $('ringing-stop').focus();
    }
  }

  async function ringAction(action) {
    const id = $('ringing-stop').dataset.id;
    if (!id) return;
    // Hide it at once (a sleepy person should not press twice); it comes back if the clock says it still rings.
    quieted.set(id, Date.now());
    const ok = await act('POST', `/api/alarms/${enc(id)}/${action}`, undefined, action === 'stop' ? 'Stopped' : 'Snoozed');
    if (!ok) quieted.delete(id);
    renderRinging();
    if (!ok && !$('ringing').open) showError('The alarm may still be ringing: try again.');
  }

  function alarmNextText(a) {
    const next = a.next && new Date(a.next);
    const ok = next && !Number.isNaN(+next);
    if (a.state === 'alerting') return 'Ringing now';
    if (a.state === 'snoozed') return ok ? `Snoozed until ${timeText(F.time, next)}` : 'Snoozed';
    if (!a.enabled || a.state === 'disabled') return 'Off';
    if (a.skippedDate) return `Skipping ${calendarDate(a.skippedDate)}` + (ok ? ` · then ${when(next)}` : '');
    if (a.state === 'paused') return 'Paused';
    return ok ? `Next: ${when(next)}` : '';
  }

  function renderAlarms() {
    const list = $('alarm-list');
    const alarms = state.alarms || [];
    list.replaceChildren(...alarms.map(alarmRow));
    $('alarm-empty').hidden = alarms.length > 0;
  }

  function alarmRow(a) {
    const on = !!a.enabled && a.state !== 'disabled';
    const label = a.label || 'Alarm';
    const wall = wallDate(a.time);
    const name = `${label}, ${timeText(F.wallTime, wall)}`; // names each row's buttons for screen readers
    const repeating = (a.repeat || []).length > 0;
    let control;
    if (a.mine) {
      control = h('button', {
        type: 'button', role: 'switch', class: 'switch', 'aria-checked': String(on), 'aria-label': `Alarm ${name}`,
        'data-testid': 'alarm-switch', 'data-key': `${a.id}:switch`,
        onclick: (e) => toggleAlarm(a, e.currentTarget),
      }, h('span', { class: 'track', 'aria-hidden': 'true' }));
    } else {
      control = h('span', { class: on ? 'tag on' : 'tag' }, on ? 'On' : 'Off');
    }
    const btn = (testid, text, aria, onclick, cls) => h('button', {
      type: 'button', class: `btn small ${cls || ''}`, 'data-testid': testid, 'data-key': `${a.id}:${testid}`,
      'aria-label': `${aria} ${name}`, onclick,
    }, text);
    return h('li', { 'data-testid': 'alarm-row', 'data-id': a.id, class: on ? '' : 'off' },
      h('div', { class: 'alarm-top' },
        h('div', { class: 'alarm-time', 'data-testid': 'alarm-row-time' }, timeNodes(F.wallTime, wall)),
        control),
      h('p', { class: 'alarm-sub' },
        h('span', { 'data-testid': 'alarm-row-label' }, label), ' · ',
        h('span', { 'data-testid': 'alarm-row-repeat' }, repeatText(a.repeat))),
      h('p', { class: 'alarm-next', 'data-testid': 'alarm-row-next' }, alarmNextText(a)),
      !a.mine && h('p', { class: 'hint', 'data-testid': 'alarm-row-owner' }, `Set by ${a.owner || 'someone else'} on the clock; read-only here`),
      a.mine && h('div', { class: 'row-actions' },
        btn('alarm-edit', 'Edit', 'Edit alarm', () => openAlarm(a)),
        repeating && on && !a.skippedDate && btn('alarm-skip', 'Skip next', 'Skip the next ring of', () =>
          act('POST', `/api/alarms/${enc(a.id)}/skip`, undefined, 'Next ring skipped')),
        a.skippedDate && on && btn('alarm-unskip', 'Don’t skip', 'Don’t skip', () =>
          act('POST', `/api/alarms/${enc(a.id)}/enable`, undefined, 'Skip cancelled')),
        btn('alarm-delete', 'Delete', 'Delete alarm', () => deleteAlarm(a, name))));
  }

  async function toggleAlarm(a, sw) {
    const on = sw.getAttribute('aria-checked') !== 'true';
    sw.setAttribute('aria-checked', String(on)); // answer the thumb at once; the stream confirms
    const ok = await act('POST', `/api/alarms/${enc(a.id)}/${on ? 'enable' : 'disable'}`, undefined, on ? 'Alarm on' : 'Alarm off');
    if (!ok && sw.isConnected) sw.setAttribute('aria-checked', String(!on));
  }

  async function deleteAlarm(a, name) {
    if (await confirmBox(`Delete the alarm ${name}?`, 'Delete', 'Keep')) {
      act('DELETE', `/api/alarms/${enc(a.id)}`, undefined, 'Alarm deleted');
    }
  }

  // ---------- the alarm form

  function checkDays(days) {
    for (const d of DAYS) $(`day-${d}`).checked = days.includes(d);
  }

  function openAlarm(a) {
    editing = a || null;
    setText($('alarm-dialog-title'), a ? 'Edit alarm' : 'New alarm');
    $('alarm-time').value = a ? a.time : '07:00';
    const mode = a ? repeatMode(a.repeat) : 'once';
    $(`repeat-${mode}`).checked = true;
    checkDays(a ? a.repeat : []);
    $('alarm-days').hidden = mode !== 'custom';
    $('alarm-label').value = a ? a.label || '' : '';
    const secs = a ? a.snoozeSeconds : state.settings && state.settings.snoozeSeconds;
    $('alarm-snooze').value = Math.min(60, Math.max(1, Math.round((secs || 540) / 60)));
    const sel = $('alarm-sound');
    const sounds = (state.sounds || []).slice();
    if (a && a.sound && !sounds.includes(a.sound)) sounds.push(a.sound); // keep a sound the list lost, so saving does not change it
    sel.replaceChildren(h('option', { value: '' }, 'Built-in tone'), ...sounds.map((s) => h('option', { value: s }, s)));
    sel.value = (a && a.sound) || '';
    hideError();
    $('alarm-dialog').showModal();
    $('alarm-time').focus();
  }

  function repeatChanged(e) {
    const mode = e.target.value;
    $('alarm-days').hidden = mode !== 'custom';
    if (mode !== 'custom') checkDays(PRESETS[mode]); // "Choose days" then starts from the last preset
  }

  async function saveAlarm(ev) {
    ev.preventDefault();
    const time = $('alarm-time').value.slice(0, 5);
    const mode = ($('alarm-form').elements.repeat.value) || 'once';
    const repeat = mode === 'custom' ? DAYS.filter((d) => $(`day-${d}`).checked) : PRESETS[mode];
    const snooze = Number($('alarm-snooze').value);
    if (!/^\d\d:\d\d$/.test(time)) return showError('Choose a time.');
    if (!repeat.length && mode === 'custom') return showError('Choose at least one day, or pick Once.');
    if (!Number.isInteger(snooze) || snooze < 1 || snooze > 60) return showError('Snooze must be a whole number of minutes from 1 to 60.');
    const body = {
      time, repeat, label: $('alarm-label').value.trim(), snoozeSeconds: snooze * 60, sound: $('alarm-sound').value || null,
    };
    $('alarm-save').disabled = true;
    const ok = editing
      ? await act('PUT', `/api/alarms/${enc(editing.id)}`, body, 'Alarm saved')
      : await act('POST', '/api/alarms', body, 'Alarm added');
    $('alarm-save').disabled = false;
    if (ok) $('alarm-dialog').close();
  }

  // ---------- timers

  function renderTimers() {
    $('timer-list').replaceChildren(...(state.timers || []).map(timerRow));
  }

  function timerRow(t) {
    const label = t.label || 'Timer';
    const paused = t.state === 'paused';
    const digits = h('span', { 'aria-hidden': 'true', 'data-testid': 'timer-countdown' });
    // Screen readers get a polite minute-by-minute line instead of sixty changes a minute.
    const spoken = h('span', { class: 'vh', 'aria-live': 'polite', 'aria-atomic': 'true' });
    const ends = Date.parse(t.endsAt);
    if (t.state === 'countdown' && !Number.isNaN(ends)) digits.dataset.ends = ends;
    else digits.dataset.left = t.state === 'alerting' ? 0 : t.remainingSeconds || 0;
    const btn = (testid, text, aria, onclick) => h('button', {
      type: 'button', class: 'btn small', 'data-testid': testid, 'data-key': `${t.id}:${testid}`, 'aria-label': `${aria} ${label}`, onclick,
    }, text);
    const row = h('li', { 'data-testid': 'timer-row', 'data-id': t.id, class: paused ? 'paused' : '' },
      h('div', { class: 'timer-top' },
        h('strong', { 'data-testid': 'timer-name' }, label),
        h('span', { class: 'hint', 'data-testid': 'timer-state' }, paused ? 'Paused' : t.state === 'alerting' ? 'Ringing' : '')),
      h('p', { class: 'countdown' }, digits, spoken),
      h('div', { class: 'row-actions' },
        paused && btn('timer-resume', 'Resume', 'Resume', () => act('POST', `/api/timers/${enc(t.id)}/resume`, undefined, 'Timer resumed')),
        t.state === 'countdown' && btn('timer-pause', 'Pause', 'Pause', () => act('POST', `/api/timers/${enc(t.id)}/pause`, undefined, 'Timer paused')),
        btn('timer-cancel', 'Cancel', 'Cancel timer', () => act('DELETE', `/api/timers/${enc(t.id)}`, undefined, 'Timer cancelled'))));
    drawCountdown(digits);
    return row;
  }

  function drawCountdown(digits) {
    const left = digits.dataset.ends ? (Number(digits.dataset.ends) - serverNow()) / 1000 : Number(digits.dataset.left);
    setText(digits, clockText(left));
    const mins = Math.ceil(left / 60);
    const name = digits.closest('li') ? digits.closest('li').querySelector('strong').textContent : '';
    setText(digits.nextSibling, left <= 0 ? `${name}: time is up` : mins <= 1 ? `${name}: under a minute left` : `${name}: ${mins} minutes left`);
  }

  function tick() {
    for (const el of document.querySelectorAll('[data-ends]')) drawCountdown(el);
  }

  // Ticks once a second only while a countdown is on screen, to spare the phone's battery.
  function updateTicking() {
    const want = !document.hidden && !!document.querySelector('#timer-list [data-ends]');
    if (want && !tickTimer) tickTimer = setInterval(tick, 1000);
    if (!want) stopTicking();
  }
  function stopTicking() {
    clearInterval(tickTimer);
    tickTimer = 0;
  }

  function startTimer(minutes) {
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > 1440) {
      showError('Minutes must be a whole number from 1 to 1440.');
      $('timer-minutes').focus();
      return;
    }
    const label = $('timer-label').value.trim() || `${minutes} min timer`;
    act('POST', '/api/timers', { seconds: minutes * 60, label }, `Timer started: ${minutes} min`).then((ok) => {
      if (ok) $('timer-label').value = '';
    });
  }

  // ---------- device, settings, phones

  function statusRow(name, ok, detail, testName) {
    return h('li', { class: 'part', 'data-testid': 'status-row', 'data-name': testName },
      h('span', {}, name),
      h('span', { class: ok ? 'ok' : 'bad' }, ok ? '✓ Working' : '✗ Problem'),
      detail && h('span', { class: 'hint' }, detail));
  }

  function renderDevice() {
    const st = state.status || {};
    const parts = st.parts || [];
    const clockOk = st.clock === 'trusted' && state.clockTrusted !== false;
    const storageOk = st.storage === 'ok';
    $('status-list').replaceChildren(
      ...parts.map((p) => statusRow(PART_NAMES[p.name] || p.name, p.ok, p.detail, p.name)),
      statusRow('Time', clockOk, clockOk ? '' : 'Not set: alarms will not ring', 'clock'),
      statusRow('Storage', storageOk, st.storageDetail || (storageOk ? '' : st.storage), 'storage'));
    const bad = parts.filter((p) => !p.ok).length + !clockOk + !storageOk;
    const sum = $('device-summary');
    setText(sum, bad ? `${bad} problem${bad > 1 ? 's' : ''}` : 'All working');
    sum.className = bad ? 'bad' : 'hint';
    const missed = state.missed || [];
    $('missed-list').replaceChildren(...(missed.length ? missed.map((m) => {
      const d = new Date(m.date);
      return h('li', { 'data-testid': 'missed-row' }, `${m.label || 'Alarm'} · ${Number.isNaN(+d) ? '' : when(d)}`);
    }) : [h('li', { class: 'hint' }, 'None')]));
  }

  function showVolume() {
    setText($('set-volume-out'), `${$('set-volume').value.replace('-', '−')} dB`);
  }

  function renderSettings() {
    const s = state.settings;
    if (!s || settingsDirty) return; // never overwrite what the person is typing
    $('set-volume').value = s.volumeDB;
    $('set-crescendo').value = s.crescendoSeconds;
    $('set-snooze').value = Math.round(s.snoozeSeconds / 60);
    $('set-autosilence').value = Math.round(s.autoSilenceSeconds / 60);
    showVolume();
  }

  function readSettings() {
    const n = (id) => Number($(id).value);
    const [vol, cres, snooze, silence] = [n('set-volume'), n('set-crescendo'), n('set-snooze'), n('set-autosilence')];
    const bad = (v, lo, hi) => $(v).value === '' || !Number.isInteger(n(v)) || n(v) < lo || n(v) > hi;
    if (bad('set-crescendo', 0, 600)) return showError('Fade in must be a whole number of seconds from 0 to 600.');
    if (bad('set-snooze', 1, 60)) return showError('Default snooze must be a whole number of minutes from 1 to 60.');
    if (bad('set-autosilence', 0, 60)) return showError('Stop ringing after must be a whole number of minutes from 0 to 60.');
    return { volumeDB: vol, crescendoSeconds: cres, snoozeSeconds: snooze * 60, autoSilenceSeconds: silence * 60 };
  }

  async function saveSettings(ev) {
    ev.preventDefault();
    const body = readSettings();
    if (!body) return;
    $('settings-save').disabled = true;
    if (await act('PUT', '/api/settings', body, 'Settings saved')) {
      settingsDirty = false;
      rendered.settings = '';
      if (state) section('settings', [state.settings], renderSettings);
    }
    $('settings-save').disabled = false;
  }

  function trySound() {
    const body = readSettings();
    if (body) act('POST', '/api/settings/try', body, 'Playing for 3 seconds…');
  }

  function renderPairings() {
    $('pairing-list').replaceChildren(...(state.pairings || []).map((p) => {
      const seen = p.lastSeen && new Date(p.lastSeen);
      return h('li', { 'data-testid': 'pairing-row', 'data-id': p.id },
        h('div', { class: 'alarm-top' },
          h('strong', { 'data-testid': 'pairing-name' }, p.name),
          p.current && h('span', { class: 'tag on', 'data-testid': 'pairing-current' }, 'This phone')),
        seen && !Number.isNaN(+seen) && h('p', { class: 'hint' }, `Last seen ${when(seen)}`),
        h('div', { class: 'row-actions' },
          h('button', {
            type: 'button', class: 'btn small', 'data-testid': 'pairing-revoke', 'data-key': `${p.id}:revoke`,
            'aria-label': p.current ? `Unpair this phone, ${p.name}` : `Revoke ${p.name}`, onclick: () => revoke(p),
          }, p.current ? 'Unpair this phone' : 'Revoke')));
    }));
  }

  async function revoke(p) {
    const q = p.current
      ? 'Unpair this phone? To use this page again you will need to pair it at the clock.'
      : `Revoke “${p.name}”? That phone will need to pair again at the clock.`;
    if (!(await confirmBox(q, p.current ? 'Unpair' : 'Revoke', 'Cancel'))) return;
    if (await act('DELETE', `/api/pairings/${enc(p.id)}`, undefined, 'Revoked') && p.current) refresh(); // the 401 shows pairing
  }

  // A confirm in the page's own big buttons (window.confirm is tiny and blocks the event stream's rendering).
  function confirmBox(text, yes, no) {
    const dlg = $('confirm-dialog');
    setText($('confirm-text'), text);
    setText($('confirm-yes'), yes);
    setText($('confirm-no'), no);
    dlg.returnValue = '';
    dlg.showModal();
    $('confirm-no').focus(); // the safe answer is the default for a half-asleep thumb
    return new Promise((resolve) => dlg.addEventListener('close', () => resolve(dlg.returnValue === 'yes'), { once: true }));
  }

  // ---------- wiring

  $('pair-form').addEventListener('submit', pair);
  $('pair-retry').addEventListener('click', () => { hideError(); pairForm(); $('pair-name').focus(); });
  $('error-dismiss').addEventListener('click', hideError);
  $('ringing-stop').addEventListener('click', () => ringAction('stop'));
  $('ringing-snooze').addEventListener('click', () => ringAction('snooze'));
  $('ringing').addEventListener('cancel', (e) => e.preventDefault()); // Escape must not hide a ringing alarm
  $('add-alarm').addEventListener('click', () => openAlarm(null));
  $('alarm-form').addEventListener('submit', saveAlarm);
  $('alarm-cancel').addEventListener('click', () => $('alarm-dialog').close());
  $('alarm-repeat').addEventListener('change', repeatChanged);
  $('confirm-yes').addEventListener('click', () => $('confirm-dialog').close('yes'));
  $('confirm-no').addEventListener('click', () => $('confirm-dialog').close('no'));
  for (const b of document.querySelectorAll('[data-minutes]')) b.addEventListener('click', () => startTimer(Number(b.dataset.minutes)));
  $('timer-form').addEventListener('submit', (e) => { e.preventDefault(); startTimer(Number($('timer-minutes').value)); });
  $('settings-form').addEventListener('input', (e) => { settingsDirty = true; if (e.target.id === 'set-volume') showVolume(); });
  $('settings-form').addEventListener('submit', saveSettings);
  $('settings-try').addEventListener('click', trySound);

  document.addEventListener('visibilitychange', () => {
    if (document.hidden) return stopTicking();
    // A phone waking from sleep may have lost the stream without noticing.
    if (state && !pairingShown) {
      render();
      if (!es) openStream();
      else if (!streamUp) refresh();
    }
  });
  // Relative words ("Tomorrow", "in 7 h") age even when nothing changes on the clock.
  setInterval(() => { if (state && !document.hidden) render(); }, 30000);

  start();
})();
