// urikit resolver page: the maintainer's tools. Reading needs none of this;
// the script only talks to this resolver's JSON API, and the token a
// maintainer pastes lives in sessionStorage (this tab, until it closes) and
// travels only in the Authorization header of API writes.
(function () {
  'use strict';

  var api = document.body.getAttribute('data-api') || '/api/v1';
  var TOKEN_KEY = 'urikit.token';
  var FLASH_KEY = 'urikit.flash';
  var memoryToken = ''; // when sessionStorage is unavailable

  // ---- Names in URLs ----

  // encodeName makes a name one path segment of the API
  // (/api/v1/names/{urn}): pchar stays (RFC 3986 §3.3), everything else is
  // percent-encoded, "%", "/", "?" and "#" among it. The server decodes the
  // segment once and gets the name back exactly.
  function encodeName(name) {
    return name.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@]/gu, function (c) {
      try { return encodeURIComponent(c); } catch (e) { return '%EF%BF%BD'; } // a lone surrogate
    });
  }

  // pageURL is the address of a name's page, as the server builds it: the
  // raw name after /names/, unless the browser would rewrite that path (dot
  // segments, also as %2e) or the name has a ? or # part.
  function pageURL(name) {
    var dot = name.split('/').some(function (s) {
      s = s.toLowerCase().split('%2e').join('.');
      return s === '.' || s === '..';
    });
    if (dot || /[?#]/.test(name) || /[^\x21-\x7e]/.test(name)) {
      return '/?urn=' + encodeURIComponent(name);
    }
    return '/names/' + name;
  }

  // ---- Token ----

  function getToken() {
    try { return window.sessionStorage.getItem(TOKEN_KEY) || ''; } catch (e) { return memoryToken; }
  }
  function setToken(t) {
    memoryToken = t;
    try {
      if (t) { window.sessionStorage.setItem(TOKEN_KEY, t); } else { window.sessionStorage.removeItem(TOKEN_KEY); }
    } catch (e) { /* memoryToken holds it */ }
  }

  function flash(msg) {
    try { window.sessionStorage.setItem(FLASH_KEY, msg); } catch (e) { /* no flash then */ }
  }
  function showFlash() {
    var el = document.getElementById('flash');
    var msg = '';
    try {
      msg = window.sessionStorage.getItem(FLASH_KEY) || '';
      window.sessionStorage.removeItem(FLASH_KEY);
    } catch (e) { return; }
    if (el && msg) {
      el.textContent = msg;
      el.hidden = false;
    }
  }

  // ---- The API ----

  // call sends one request to the names API and reads its answer: the JSON
  // body and the ETag on success, the problem details (RFC 9457) otherwise,
  // a 412 explained for the maintainer. cond, when given, is an
  // object of conditional headers (If-Match with the entity-tag of the
  // record the maintainer saw, or If-None-Match: * for a new name), so that
  // a write made meanwhile by someone else is not silently overwritten: the
  // API answers 412 instead (RFC 9110 §13.1.1).
  function call(method, name, suffix, body, auth, cond) {
    var headers = { 'Accept': 'application/json, application/problem+json' };
    if (auth) { headers['Authorization'] = 'Bearer ' + getToken(); }
    if (body !== undefined) { headers['Content-Type'] = 'application/json'; }
    Object.keys(cond || {}).forEach(function (k) { if (cond[k]) { headers[k] = cond[k]; } });
    return fetch(api + '/names/' + encodeName(name) + (suffix || ''), {
      method: method, headers: headers, body: body, cache: 'no-store', credentials: 'omit'
    }).then(function (resp) {
      var ct = resp.headers.get('Content-Type') || '';
      var parse = /json/.test(ct) ? resp.json().catch(function () { return null; }) : Promise.resolve(null);
      return parse.then(function (data) {
        if (resp.ok) { return { ok: true, status: resp.status, data: data, etag: resp.headers.get('ETag') || '' }; }
        var p = data || { title: resp.statusText || 'Request failed' };
        if (resp.status === 412 && p.field === 'If-None-Match') {
          p.detail = 'This name has a record already; nothing was saved. Edit it on its page.';
          p.field = '';
          p.record = name;
        } else if (resp.status === 412) {
          p.detail = 'Someone changed this name since this page was loaded; nothing was saved. Reload the page to see the change, then make yours again.';
          p.field = '';
        }
        return { ok: false, status: resp.status, problem: p };
      });
    }, function (err) {
      return { ok: false, status: 0, problem: { title: 'The resolver did not answer', detail: String(err && err.message || err) } };
    });
  }

  // ownRecord is a record's JSON without its predecessors, the withdrawn
  // records that name it as their successor.
  function ownRecord(rec) {
    var o = Object.assign({}, rec);
    delete o.predecessors;
    delete o.more_predecessors;
    return JSON.stringify(o);
  }

  // writeMatching sends a write conditional on etag, the entity-tag of
  // the record the maintainer started from, whose ownRecord was seen. The
  // entity-tag also covers the record's predecessors, which another
  // authority's withdrawal changes without touching this record. So after
  // a 412, when the record itself is still the one seen, nothing the
  // maintainer saw has changed, and the write is sent once more with the
  // current entity-tag; any other 412 stands. (The record's updated time
  // alone would not do: two changes may share it.)
  function writeMatching(method, name, suffix, body, etag, seen) {
    return call(method, name, suffix, body, true, { 'If-Match': etag }).then(function (res) {
      if (res.ok || res.status !== 412 || !seen) { return res; }
      return call('GET', name, '', undefined, false).then(function (now) {
        if (!now.ok || !now.etag || !now.data || ownRecord(now.data) !== seen) { return res; }
        return call(method, name, suffix, body, true, { 'If-Match': now.etag });
      });
    });
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }

  // showProblem writes a problem into box, as text (never as HTML).
  function showProblem(box, status, p) {
    box.replaceChildren();
    box.className = 'result error';
    var title = (status ? status + ' ' : '') + (p.title || 'Request failed');
    box.appendChild(el('span', 'title', title));
    if (p.detail) { box.appendChild(el('p', '', p.detail)); }
    if (p.field) {
      var where = 'Field: ' + p.field;
      if (typeof p.offset === 'number') { where += ', at byte ' + p.offset; }
      box.appendChild(el('p', '', where));
    }
    if (p.record) {
      var line = el('p', '', 'In the way: ');
      var a = el('a', '', p.record);
      a.href = pageURL(p.record);
      line.appendChild(a);
      box.appendChild(line);
    }
    box.hidden = false;
  }
  function showLocal(box, title, detail) { showProblem(box, 0, { title: title, detail: detail }); }

  // ---- The editor ----

  function Editor(section) {
    var form = section.querySelector('#editor');
    var list = form.querySelector('#ed-locations');
    var tpl = document.getElementById('location-row');
    var result = form.querySelector('#ed-result');
    var save = form.querySelector('#ed-save');
    var mode = section.getAttribute('data-mode');
    var loaded = false;
    var etag = '', seen = ''; // of the record the form was filled from

    function renumber() {
      Array.prototype.forEach.call(list.children, function (li, i) {
        var n = i + 1;
        li.querySelector('.loc-url').setAttribute('aria-label', 'URL of location ' + n);
        li.querySelector('.loc-type').setAttribute('aria-label', 'Media type of location ' + n);
        li.querySelector('.loc-label').setAttribute('aria-label', 'Label of location ' + n);
        li.querySelector('[data-act=up] .vh').textContent = 'Move location ' + n + ' up';
        li.querySelector('[data-act=down] .vh').textContent = 'Move location ' + n + ' down';
        li.querySelector('[data-act=remove] .vh').textContent = 'Remove location ' + n;
      });
    }
    function addRow(loc) {
      var li = tpl.content.firstElementChild.cloneNode(true);
      li.querySelector('.loc-url').value = loc && loc.url || '';
      li.querySelector('.loc-type').value = loc && loc.type || '';
      li.querySelector('.loc-label').value = loc && loc.label || '';
      list.appendChild(li);
      renumber();
      return li;
    }
    function fill(rec) {
      list.replaceChildren();
      (rec.locations || []).forEach(addRow);
      if (!list.children.length) { addRow(); }
      form.querySelector('#ed-aliases').value = (rec.aliases || []).join('\n');
      var meta = rec.metadata && Object.keys(rec.metadata).length ? JSON.stringify(rec.metadata, null, 2) : '';
      form.querySelector('#ed-metadata').value = meta;
      form.querySelector('#ed-redirect').value = String(rec.redirect || 303);
    }

    list.addEventListener('click', function (ev) {
      var b = ev.target.closest('button[data-act]');
      if (!b) { return; }
      var li = b.closest('li');
      switch (b.getAttribute('data-act')) {
        case 'up':
          if (li.previousElementSibling) { list.insertBefore(li, li.previousElementSibling); }
          b.focus();
          break;
        case 'down':
          if (li.nextElementSibling) { list.insertBefore(li.nextElementSibling, li); }
          b.focus();
          break;
        case 'remove':
          li.remove();
          form.querySelector('#ed-add-location').focus();
          break;
      }
      renumber();
    });
    form.querySelector('#ed-add-location').addEventListener('click', function () {
      addRow().querySelector('.loc-url').focus();
    });

    // body builds the PUT body as text, so that the metadata goes out as
    // the maintainer wrote it (JSON.parse would round big numbers).
    function body() {
      var locs = [];
      Array.prototype.forEach.call(list.children, function (li) {
        var l = {
          url: li.querySelector('.loc-url').value.trim(),
          type: li.querySelector('.loc-type').value.trim(),
          label: li.querySelector('.loc-label').value.trim()
        };
        if (!l.url && !l.type && !l.label) { return; }
        if (!l.type) { delete l.type; }
        if (!l.label) { delete l.label; }
        locs.push(l);
      });
      var aliases = form.querySelector('#ed-aliases').value.split('\n')
        .map(function (s) { return s.trim(); }).filter(Boolean);
      var meta = form.querySelector('#ed-metadata').value.trim();
      if (meta) {
        var parsed;
        try { parsed = JSON.parse(meta); } catch (e) {
          showLocal(result, 'The metadata is not JSON', String(e.message || e));
          return null;
        }
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
          showLocal(result, 'The metadata must be a JSON object', 'Write it in braces: {"title": "…"}');
          return null;
        }
      }
      return '{"locations":' + JSON.stringify(locs) + ',"aliases":' + JSON.stringify(aliases) +
        ',"redirect":' + Number(form.querySelector('#ed-redirect').value) +
        (meta ? ',"metadata":' + meta : '') + '}';
    }

    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      result.hidden = true;
      var name = mode === 'new' ? form.querySelector('#ed-urn').value.trim() : section.getAttribute('data-urn');
      if (!name) {
        showLocal(result, 'Enter the name to register', 'A URN such as urn:example:report-2024.');
        return;
      }
      var b = body();
      if (b === null) { return; }
      save.disabled = true;
      // An edit replaces only the record it started from; a registration
      // creates a record, never replaces one registered meanwhile.
      var sent = mode === 'edit' ? writeMatching('PUT', name, '', b, etag, seen) :
        call('PUT', name, '', b, true, { 'If-None-Match': '*' });
      sent.then(function (res) {
        save.disabled = false;
        if (!res.ok) { showProblem(result, res.status, res.problem); return; }
        var urn = res.data && res.data.urn || name;
        flash(res.status === 201 ? 'Registered ' + urn + '.' : 'Saved ' + urn + '.');
        window.location.assign(pageURL(urn));
      });
    });

    this.show = function () {
      form.hidden = false;
      if (loaded) { return; }
      loaded = true;
      if (mode !== 'edit') { addRow(); return; }
      // Start from the record as the API has it now.
      call('GET', section.getAttribute('data-urn'), '', undefined, false).then(function (res) {
        if (!res.ok) { showProblem(result, res.status, res.problem); return; }
        etag = res.etag;
        seen = res.data ? ownRecord(res.data) : '';
        fill(res.data || {});
      });
    };
    this.hide = function () { form.hidden = true; };
  }

  // NoticeForm posts a withdrawal notice (reason and successor) from the
  // form with id formId, whose fields are named with prefix: the
  // withdrawal of a live name (which must be confirmed first), or a
  // withdrawn name's notice restated (the same call, on a name that stays
  // withdrawn). It sends the page's entity-tag, so that a change made
  // since the page was loaded is not undone.
  // pageRecord is the ownRecord of the record the page shows ('' when the
  // page holds none).
  function pageRecord(section) {
    try { return ownRecord(JSON.parse(section.getAttribute('data-record'))); } catch (e) { return ''; }
  }

  function NoticeForm(section, formId, prefix, done) {
    var form = section.querySelector('#' + formId);
    if (!form) { return null; }
    var result = form.querySelector('#' + prefix + '-result');
    var submit = form.querySelector('#' + prefix + '-submit');
    var confirm = form.querySelector('#' + prefix + '-confirm');
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      result.hidden = true;
      if (confirm && !confirm.checked) {
        showLocal(result, 'Confirm the withdrawal', 'Tick the box: a withdrawn name can never be used again.');
        return;
      }
      var name = section.getAttribute('data-urn');
      var b = JSON.stringify({
        reason: form.querySelector('#' + prefix + '-reason').value.trim(),
        successor: form.querySelector('#' + prefix + '-successor').value.trim()
      });
      submit.disabled = true;
      writeMatching('POST', name, '/withdraw', b, section.getAttribute('data-etag'), pageRecord(section)).then(function (res) {
        submit.disabled = false;
        if (!res.ok) { showProblem(result, res.status, res.problem); return; }
        flash(done + ' ' + name + '.');
        window.location.assign(section.getAttribute('data-page') || pageURL(name));
      });
    });
    return { show: function () { form.hidden = false; }, hide: function () { form.hidden = true; } };
  }

  function initMaintain(section) {
    var tokenForm = section.querySelector('#token-form');
    var tokenInput = section.querySelector('#token');
    var state = section.querySelector('#token-state');
    var stateText = section.querySelector('#token-text');
    // A withdrawn name's section has the notice form and no editor.
    var forms = [
      NoticeForm(section, 'withdraw', 'wd', 'Withdrew'),
      NoticeForm(section, 'notice', 'nt', 'Saved the withdrawal notice of')
    ].filter(Boolean);
    if (section.querySelector('#editor')) { forms.unshift(new Editor(section)); }

    function update() {
      var t = getToken();
      tokenForm.hidden = !!t;
      state.hidden = !t;
      if (t) {
        stateText.textContent = 'Using the token ending in …' + t.slice(-4) + ' (this tab only).';
        forms.forEach(function (f) { f.show(); });
      } else {
        forms.forEach(function (f) { f.hide(); });
      }
    }
    tokenForm.addEventListener('submit', function (ev) {
      ev.preventDefault();
      var t = tokenInput.value.trim().replace(/^Bearer\s+/i, '');
      tokenInput.value = '';
      if (!t) { tokenInput.focus(); return; }
      setToken(t);
      update();
    });
    section.querySelector('#token-forget').addEventListener('click', function () {
      setToken('');
      update();
      tokenInput.focus();
    });
    section.hidden = false;
    update();
  }

  function init() {
    showFlash();
    var section = document.getElementById('maintain');
    if (section) { initMaintain(section); }
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init();
  }
})();
