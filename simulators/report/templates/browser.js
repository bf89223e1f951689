// Episode browser of a crsim report. Vanilla JS, no network: the data is the JSON in
// #report-data. Every text from the log goes into the page through textContent (never
// innerHTML), because episode text comes from language models and must not become markup.
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("report-data").textContent);
  var episodes = data.episodes;
  var byKey = {};
  episodes.forEach(function (e) { byKey[e.key] = e; });

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function append(parent) {
    for (var i = 1; i < arguments.length; i++) {
      if (arguments[i]) { parent.appendChild(arguments[i]); }
    }
    return parent;
  }

  function card(episode, itemId, feedback) {
    var cards = (episode.catalog && data.cards[episode.catalog]) || {};
    var info = cards[itemId];
    var isTarget = episode.targets.indexOf(itemId) >= 0;
    var node = el("div", "card" + (isTarget ? " target" : ""));
    node.setAttribute("data-item", itemId);
    append(node, el("div", "title", info ? info.title : itemId));
    var idLine = el("div", "id", itemId);
    if (isTarget) { append(idLine, document.createTextNode(" "), el("span", "badge", "target")); }
    if (feedback) { append(idLine, document.createTextNode(" "), el("span", "badge", feedback)); }
    append(node, idLine);
    if (info) {
      var list = el("ul");
      info.attributes.forEach(function (pair) { append(list, el("li", null, pair[0] + ": " + pair[1])); });
      if (info.attributes.length) { append(node, list); }
      if (info.description) { append(node, el("div", "muted", info.description)); }
    }
    return node;
  }

  function turnNode(episode, turn) {
    var li = el("li", turn.role);
    var head = el("div", "turn-head", turn.role + (turn.turn ? " · turn " + turn.turn : ""));
    if (turn.evaluation) {
      append(head, document.createTextNode(" · after this turn: "), el("span", "rank", turn.evaluation));
    }
    append(li, head, el("div", "turn-text", turn.text));
    if (turn.items.length) {
      var cards = el("div", "cards");
      turn.items.forEach(function (id) { append(cards, card(episode, id, turn.feedback[id])); });
      append(li, cards);
    }
    var feedbackIds = Object.keys(turn.feedback);
    if (feedbackIds.length) {
      var fb = el("div", "feedback", "feedback: ");
      fb.textContent += feedbackIds.map(function (id) {
        var info = episode.catalog && data.cards[episode.catalog] && data.cards[episode.catalog][id];
        return (info ? info.title + " (" + id + ")" : id) + " → " + turn.feedback[id];
      }).join("; ");
      append(li, fb);
    }
    if (turn.added.length || turn.removed.length) {
      append(li, el("div", "feedback", "item set: " +
        turn.added.map(function (id) { return "+" + id; }).concat(
          turn.removed.map(function (id) { return "-" + id; })).join(" ")));
    }
    if (turn.meta.length) {
      var meta = el("details");
      append(meta, el("summary", null, "metadata"));
      append(meta, el("pre", null, turn.meta.map(function (p) { return p[0] + ": " + p[1]; }).join("\n")));
      append(li, meta);
    }
    return li;
  }

  function callNode(call, position) {
    var status = call.ok ? (call.repaired ? "ok (repair)" : "ok") : "failed";
    var tokens = (call.input_tokens !== null && call.input_tokens !== undefined)
      ? " · " + call.input_tokens + " in / " + call.output_tokens + " out tokens" : "";
    var node = el("details", call.ok ? "call" : "call call-failed");
    append(node, el("summary", null, "#" + (position + 1) + " " + call.step + " (" + call.role + ")" +
      (call.model ? " · " + call.model : "") + " · " + status + tokens +
      (typeof call.cost_usd === "number" ? " · $" + call.cost_usd.toFixed(4) : "") +
      (call.cache_hit ? " · cache hit" : "")));
    call.messages.forEach(function (m) {
      append(node, el("div", "muted", m.role), el("pre", null, m.content));
    });
    if (call.response !== null && call.response !== undefined) {
      append(node, el("div", "muted", "response"), el("pre", null, call.response));
    }
    if (call.error) { append(node, el("div", "muted", "error"), el("pre", null, call.error)); }
    return node;
  }

  function show(key) {
    var episode = byKey[key];
    var panel = document.getElementById("transcript");
    if (!episode) { return; }
    panel.textContent = "";
    append(panel, el("h3", null, "Episode " + episode.id + " — " + episode.config));
    var summary = el("p");
    append(summary, el("span", "badge " + episode.termination, episode.termination),
           document.createTextNode(episode.final ? " · at the end: " + episode.final : " · no evaluation records"),
           document.createTextNode(" · seed " + episode.seed + " · " + episode.environment));
    append(panel, summary);
    if (episode.targets.length) {
      append(panel, el("div", "muted", episode.targets.length === 1 ? "Target" : "Targets (" + episode.targets.length + ")"));
      var targetCards = el("div", "cards");
      episode.targets.slice(0, 24).forEach(function (id) { append(targetCards, card(episode, id)); });
      append(panel, targetCards);
    }
    if (episode.error) {
      var err = el("details"); err.open = true;
      append(err, el("summary", null, "error"), el("pre", null, episode.error));
      append(panel, err);
    }
    if (episode.profile) {
      var profile = el("details");
      append(profile, el("summary", null, "seeker profile"), el("pre", null, episode.profile));
      append(panel, profile);
    }
    var turns = el("ol", "turns");
    episode.turns.forEach(function (t) { append(turns, turnNode(episode, t)); });
    append(panel, turns);
    var calls = el("details", "llm-calls");
    append(calls, el("summary", null, "LLM calls (" + episode.llm_calls.length + ")"));
    episode.llm_calls.forEach(function (c, i) { append(calls, callNode(c, i)); });
    append(panel, calls);
    Array.prototype.forEach.call(document.querySelectorAll("#episode-rows tr"), function (tr) {
      tr.classList.toggle("selected", tr.getAttribute("data-key") === key);
    });
  }

  function fillSelect(id, values) {
    var select = document.getElementById(id);
    values.forEach(function (v) {
      var option = el("option", null, v);
      option.value = v;
      append(select, option);
    });
    select.addEventListener("change", renderList);
  }

  function unique(field) {
    var seen = [];
    episodes.forEach(function (e) { if (seen.indexOf(e[field]) < 0) { seen.push(e[field]); } });
    return seen;
  }

  function renderList() {
    var config = document.getElementById("filter-config").value;
    var outcome = document.getElementById("filter-outcome").value;
    var body = document.getElementById("episode-rows");
    body.textContent = "";
    var shown = 0;
    episodes.forEach(function (e) {
      if ((config && e.config !== config) || (outcome && e.termination !== outcome)) { return; }
      shown += 1;
      var tr = el("tr");
      tr.setAttribute("data-key", e.key);
      tr.tabIndex = 0;
      append(tr, el("td", null, e.id), el("td", null, e.config),
             append(el("td"), el("span", "badge " + e.termination, e.termination)),
             el("td", "num", e.final_rank === null ? "-" : e.final_rank));
      tr.addEventListener("click", function () { show(e.key); });
      tr.addEventListener("keydown", function (ev) { if (ev.key === "Enter") { show(e.key); } });
      append(body, tr);
    });
    document.getElementById("episode-count").textContent = shown + " of " + episodes.length + " episodes";
  }

  fillSelect("filter-config", unique("config"));
  fillSelect("filter-outcome", unique("termination"));
  renderList();
})();
