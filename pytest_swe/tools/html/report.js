// The report's table, filters, item view and comparison matrix. Every value read from the data
// reaches the page through textContent or an attribute set by setAttribute, never as markup.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("swe-data").textContent);
  var items = data.items;
  var runs = data.runs;
  var STATUSES = ["resolved", "unresolved", "error", "skipped"];
  var state = { status: "all", run: "all", benchmark: "all", text: "", sort: "n", desc: false };

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        node.setAttribute(key, attrs[key]);
      });
    }
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function ratio(pair) {
    return pair && pair[1] !== "" && pair[1] !== undefined ? pair[0] + "/" + pair[1] : "";
  }

  function money(value) {
    return value === null || value === undefined ? "" : "$" + value.toFixed(4);
  }

  function statusText(item) {
    return item.status === "error" && item.kind ? "error " + item.kind : item.status;
  }

  var COLUMNS = [
    { key: "id", title: "instance", value: function (i) { return i.id; } },
    { key: "run", title: "run", value: function (i) { return runs[i.run].label; }, multi: true },
    { key: "benchmark", title: "benchmark", value: function (i) { return i.benchmark; } },
    { key: "repo", title: "repo", value: function (i) { return i.repo; } },
    { key: "agent", title: "agent", value: function (i) { return i.agent; } },
    { key: "status", title: "outcome", value: statusText },
    { key: "f2p", title: "F2P", value: function (i) { return ratio(i.f2p); }, num: function (i) { return Number(i.f2p[0]) / (Number(i.f2p[1]) || 1); } },
    { key: "p2p", title: "P2P", value: function (i) { return ratio(i.p2p); }, num: function (i) { return Number(i.p2p[0]) / (Number(i.p2p[1]) || 1); } },
    { key: "steps", title: "steps", value: function (i) { return i.steps; }, num: function (i) { return Number(i.steps) || 0; } },
    { key: "cost", title: "cost", value: function (i) { return money(i.cost); }, num: function (i) { return i.cost || 0; } },
    { key: "time", title: "time (s)", value: function (i) { return i.time.toFixed(1); }, num: function (i) { return i.time; } }
  ].filter(function (c) { return !c.multi || runs.length > 1; });

  // --- filters -----------------------------------------------------------------------------
  function fillSelect(select, label, values) {
    select.appendChild(el("option", { value: "all" }, "all " + label));
    values.forEach(function (v) {
      select.appendChild(el("option", { value: v.value }, v.text));
    });
    if (values.length < 2) select.hidden = true;
  }

  function setupFilters() {
    var chips = document.getElementById("status-filter");
    ["all"].concat(STATUSES).forEach(function (status) {
      var count = status === "all" ? items.length : items.filter(function (i) { return i.status === status; }).length;
      var button = el("button", { type: "button", "data-status": status, "class": "chip " + status }, status + " " + count);
      if (status === state.status) button.classList.add("on");
      button.addEventListener("click", function () {
        state.status = status;
        chips.querySelectorAll("button").forEach(function (b) { b.classList.toggle("on", b === button); });
        draw();
      });
      chips.appendChild(button);
    });
    var runSelect = document.getElementById("run-filter");
    fillSelect(runSelect, "runs", runs.map(function (r, n) { return { value: String(n), text: r.label }; }));
    runSelect.addEventListener("change", function () { state.run = runSelect.value; draw(); });
    var benchmarks = Array.from(new Set(items.map(function (i) { return i.benchmark; }))).sort();
    var benchSelect = document.getElementById("benchmark-filter");
    fillSelect(benchSelect, "benchmarks", benchmarks.map(function (b) { return { value: b, text: b }; }));
    benchSelect.addEventListener("change", function () { state.benchmark = benchSelect.value; draw(); });
    var search = document.getElementById("search");
    search.addEventListener("input", function () { state.text = search.value.toLowerCase(); draw(); });
  }

  function shown(item) {
    if (state.status !== "all" && item.status !== state.status) return false;
    if (state.run !== "all" && String(item.run) !== state.run) return false;
    if (state.benchmark !== "all" && item.benchmark !== state.benchmark) return false;
    if (state.text) {
      var hay = [item.id, item.repo, item.agent, item.kind, item.exit, item.benchmark].join(" ").toLowerCase();
      if (hay.indexOf(state.text) < 0) return false;
    }
    return true;
  }

  // --- the table ---------------------------------------------------------------------------
  var table = document.getElementById("table");
  function header() {
    var row = el("tr");
    COLUMNS.forEach(function (col) {
      var th = el("th", { "data-key": col.key, title: "sort by " + col.title }, col.title);
      th.addEventListener("click", function () {
        state.desc = state.sort === col.key ? !state.desc : false;
        state.sort = col.key;
        draw();
      });
      row.appendChild(th);
    });
    table.tHead.appendChild(row);
  }

  function sorted(list) {
    var col = COLUMNS.filter(function (c) { return c.key === state.sort; })[0];
    var key = col ? (col.num || col.value) : function (i) { return i.n; };
    var out = list.slice().sort(function (a, b) {
      var x = key(a), y = key(b);
      if (x < y) return -1;
      if (x > y) return 1;
      return a.n - b.n;
    });
    return state.desc ? out.reverse() : out;
  }

  // Each item's row is built once; a redraw only picks and orders the rows.
  var rowNodes = {};
  function rowOf(item) {
    var row = rowNodes[item.n];
    if (!row) {
      row = rowNodes[item.n] = el("tr", { "data-n": String(item.n), "class": "row " + item.status });
      COLUMNS.forEach(function (col) {
        row.appendChild(el("td", { "class": col.key }, col.value(item)));
      });
    }
    return row;
  }
  table.addEventListener("click", function (event) {
    var row = event.target.closest("tr.row");
    if (row) openItem(Number(row.getAttribute("data-n")));
  });

  function draw() {
    var body = document.createElement("tbody");
    var list = sorted(items.filter(shown));
    list.forEach(function (item) { body.appendChild(rowOf(item)); });
    table.replaceChild(body, table.tBodies[0]);
    table.tHead.querySelectorAll("th").forEach(function (th) {
      th.classList.toggle("sorted", th.getAttribute("data-key") === state.sort);
      th.classList.toggle("desc", th.getAttribute("data-key") === state.sort && state.desc);
    });
    document.getElementById("shown").textContent = list.length + " of " + items.length + " shown";
  }

  // --- one item ----------------------------------------------------------------------------
  function detail(n) {
    return JSON.parse(document.getElementById("detail-" + n).textContent);
  }

  function lines(text) {
    var out = text.split("\n");
    if (out.length > 1 && out[out.length - 1] === "") out.pop(); // the file's last newline ends a line
    return out;
  }

  function block(title, cls) {
    var box = el("div", { "class": "block " + (cls || "") });
    box.appendChild(el("h3", null, title));
    return box;
  }

  function missing(box, artifact) {
    box.appendChild(el("p", { "class": "missing" }, artifact.missing || "not recorded"));
  }

  function pathLine(box, artifact) {
    if (artifact.path) box.appendChild(el("p", { "class": "path" }, artifact.path));
    if (artifact.cut) box.appendChild(el("p", { "class": "cut" }, artifact.cut + " characters of the middle are left out"));
  }

  function patchView(artifact) {
    var box = block("patch", "patch");
    if (artifact.text === undefined) { missing(box, artifact); return box; }
    pathLine(box, artifact);
    if (!artifact.text.trim()) { box.appendChild(el("p", { "class": "missing" }, "empty patch")); return box; }
    var pre = el("pre", { "class": "diff" });
    lines(artifact.text).forEach(function (line) {
      var cls = "";
      if (line.indexOf("+++") === 0 || line.indexOf("---") === 0 || line.indexOf("diff ") === 0) cls = "file";
      else if (line.charAt(0) === "+") cls = "add";
      else if (line.charAt(0) === "-") cls = "del";
      else if (line.indexOf("@@") === 0) cls = "hunk";
      pre.appendChild(el("span", { "class": "line " + cls }, line + "\n"));
    });
    box.appendChild(pre);
    return box;
  }

  function logView(artifact, marks) {
    var box = block("eval log", "log");
    if (artifact.text === undefined) { missing(box, artifact); return box; }
    pathLine(box, artifact);
    var byLine = {};
    marks.forEach(function (m) { byLine[m[0]] = m; });
    var nav = el("p", { "class": "marks" }, marks.length + " line(s) name a graded test ");
    box.appendChild(nav);
    var pre = el("pre", { "class": "evallog" });
    if (marks.length) {
      var only = el("input", { type: "checkbox", "class": "only-graded" });
      only.addEventListener("change", function () { pre.classList.toggle("only-graded", only.checked); });
      var label = el("label", null, " only those lines");
      label.insertBefore(only, label.firstChild);
      nav.appendChild(label);
      var jump = el("button", { type: "button", "class": "jump" }, "first failing");
      jump.addEventListener("click", function () {
        var first = pre.querySelector(".graded.bad") || pre.querySelector(".graded");
        if (first) pre.scrollTop = first.offsetTop - pre.offsetTop - 20;
      });
      nav.appendChild(jump);
    }
    lines(artifact.text).forEach(function (line, number) {
      var mark = byLine[number];
      var span = el("span", { "class": "line" }, line + "\n");
      if (mark) {
        span.classList.add("graded", mark[2] ? "ok" : "bad", mark[1] === "FAIL_TO_PASS" ? "f2p" : "p2p");
        span.setAttribute("title", mark[1] + " " + mark[3] + (mark[2] ? " (passed)" : " (failed)"));
      }
      pre.appendChild(span);
    });
    box.appendChild(pre);
    return box;
  }

  function verdictView(d, row) {
    var box = block("verdict", "verdict");
    box.appendChild(el("p", { "class": "outcome " + row.status }, statusText(row) + (d.resolution ? " · " + d.resolution : "")));
    if (d.reasons.length) {
      var ul = el("ul", { "class": "reasons" });
      d.reasons.forEach(function (r) { ul.appendChild(el("li", null, r)); });
      box.appendChild(ul);
    }
    if (d.tamper.length) box.appendChild(el("p", { "class": "tamper" }, "tamper: " + d.tamper.join("; ")));
    if (d.message) box.appendChild(el("pre", { "class": "message" }, d.message));
    if (d.tests.length) {
      var t = el("table", { "class": "tests" });
      var head = el("tr");
      ["group", "test", "graded", "log status"].forEach(function (h) { head.appendChild(el("th", null, h)); });
      t.appendChild(head);
      d.tests.forEach(function (test) {
        var tr = el("tr", { "class": test[2] ? "ok" : "bad" });
        tr.appendChild(el("td", null, test[1]));
        tr.appendChild(el("td", { "class": "name" }, test[0]));
        tr.appendChild(el("td", null, test[2] ? "passed" : "failed"));
        tr.appendChild(el("td", null, test[3] || "not in log"));
        t.appendChild(tr);
      });
      box.appendChild(t);
    } else if (d.artifacts.verdict.missing) {
      missing(box, d.artifacts.verdict);
    }
    return box;
  }

  function trajectoryView(d) {
    var box = block("trajectory", "trajectory");
    var artifact = d.artifacts.trajectory;
    if (artifact.path) box.appendChild(el("p", { "class": "path" }, artifact.path));
    if (d.steps) {
      d.steps.forEach(function (step) {
        var s = el("details", { "class": "step" });
        s.open = d.steps.length <= 12;
        s.appendChild(el("summary", null, step.title + (step.actions.length ? " · " + step.actions.length + " action(s)" : "")));
        if (step.thought) s.appendChild(el("pre", { "class": "thought" }, step.thought));
        step.actions.forEach(function (a) {
          if (a.command) s.appendChild(el("pre", { "class": "command" }, "$ " + a.command));
          var status = a.exit_code !== "" ? "exit " + a.exit_code + (a.timed_out ? " (timed out)" : "") : "";
          if (status) s.appendChild(el("p", { "class": "exit" }, status));
          if (a.output) s.appendChild(el("pre", { "class": "output" }, a.output));
        });
        box.appendChild(s);
      });
    } else if (artifact.text !== undefined) {
      box.appendChild(el("p", { "class": "missing" }, "not a trajectory format the report reads: the raw file"));
      box.appendChild(el("pre", { "class": "raw" }, artifact.text));
    } else {
      missing(box, artifact);
    }
    return box;
  }

  function propsView(d) {
    var box = block("properties", "props");
    var dl = el("dl");
    Object.keys(d.properties).sort().forEach(function (key) {
      var div = el("div");
      div.appendChild(el("dt", null, key));
      div.appendChild(el("dd", null, d.properties[key]));
      dl.appendChild(div);
    });
    var more = el("details");
    more.appendChild(el("summary", null, "all properties"));
    more.appendChild(dl);
    box.appendChild(more);
    return box;
  }

  function scriptView(artifact) {
    var box = el("details", { "class": "block script" });
    box.appendChild(el("summary", null, "eval script"));
    if (artifact.text === undefined) missing(box, artifact);
    else { pathLine(box, artifact); box.appendChild(el("pre", null, artifact.text)); }
    return box;
  }

  function openItem(n) {
    var row = items[n];
    var d = detail(n);
    var view = document.getElementById("detail");
    view.textContent = "";
    var bar = el("div", { "class": "detail-bar" });
    bar.appendChild(el("h2", null, row.id));
    bar.appendChild(el("span", { "class": "badge " + row.status }, statusText(row)));
    if (runs.length > 1) bar.appendChild(el("span", { "class": "runlabel" }, runs[row.run].label));
    var close = el("button", { type: "button", id: "close" }, "close");
    close.addEventListener("click", function () { view.hidden = true; location.hash = ""; });
    bar.appendChild(close);
    view.appendChild(bar);
    view.appendChild(verdictView(d, row));
    view.appendChild(patchView(d.artifacts.patch));
    view.appendChild(logView(d.artifacts.eval_log, d.marks));
    view.appendChild(trajectoryView(d));
    view.appendChild(scriptView(d.artifacts.eval_script));
    view.appendChild(propsView(d));
    view.hidden = false;
    view.setAttribute("data-n", String(n));
    if (location.hash !== "#item-" + n) history.replaceState(null, "", "#item-" + n);
    view.scrollIntoView();
  }

  // --- comparison matrix ---------------------------------------------------------------------
  function matrix() {
    var t = document.getElementById("matrix");
    if (!t) return;
    var head = el("tr");
    head.appendChild(el("th", null, "instance"));
    runs.forEach(function (r) { head.appendChild(el("th", null, r.label)); });
    t.tHead.appendChild(head);
    var only = document.getElementById("changed-only");
    function drawMatrix() {
      var body = document.createElement("tbody");
      data.matrix.forEach(function (m) {
        var statuses = m.cells.map(function (c) { return c === null ? "absent" : items[c].status; });
        var changed = statuses.some(function (s) { return s !== statuses[0]; });
        if (only.checked && !changed) return;
        var tr = el("tr", { "class": changed ? "changed" : "" });
        tr.appendChild(el("td", null, m.id));
        m.cells.forEach(function (c, k) {
          var td = el("td", { "class": "cell " + statuses[k] }, c === null ? "absent" : statusText(items[c]));
          if (c !== null) td.addEventListener("click", function () { openItem(c); });
          tr.appendChild(td);
        });
        body.appendChild(tr);
      });
      t.replaceChild(body, t.tBodies[0]);
    }
    only.addEventListener("change", drawMatrix);
    drawMatrix();
  }

  setupFilters();
  header();
  draw();
  matrix();
  document.body.setAttribute("data-ready", "1");
  var hash = /^#item-(\d+)$/.exec(location.hash);
  if (hash && items[Number(hash[1])]) openItem(Number(hash[1]));
})();
