// FormalMarket: the few behaviours the pages need, without inline scripts (the
// Content-Security-Policy allows only scripts from /static/).
//  - textarea.code: a small code editor. No soft wrap; Tab and Shift-Tab indent and dedent
//    (the selected lines, or insert four spaces); Enter keeps the line's indentation.
//    Esc then Tab leaves the field, so keyboard users are never trapped.
//  - [data-starters]: a verifier source box that follows the language select with a
//    starter, as long as the author has not edited it.
//  - button[data-fill-from]: copies a starter into a form field.
//  - button[data-copy-from]: copies an element's text (a new key) to the clipboard.
//  - svg.chart .point: shows the trade under the pointer or focus in .chart-tip.
(function () {
  "use strict";
  var INDENT = "    ";

  function lineStart(text, index) {
    return text.lastIndexOf("\n", index - 1) + 1;
  }

  function replaceRange(area, start, end, text, selStart, selEnd) {
    area.setRangeText(text, start, end, "preserve");
    area.selectionStart = selStart;
    area.selectionEnd = selEnd;
    area.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function indentLines(area, dedent) {
    var value = area.value;
    var start = area.selectionStart, end = area.selectionEnd;
    if (!dedent && start === end) {
      replaceRange(area, start, end, INDENT, start + INDENT.length, start + INDENT.length);
      return;
    }
    var from = lineStart(value, start);
    var to = end > from && value[end - 1] === "\n" ? end - 1 : end;
    var lines = value.slice(from, to).split("\n");
    var firstShift = 0, total = 0;
    var changed = lines.map(function (line, i) {
      if (!dedent) { total += INDENT.length; if (i === 0) { firstShift = INDENT.length; } return INDENT + line; }
      var cut = line.match(/^ {1,4}|^\t/);
      var n = cut ? cut[0].length : 0;
      total -= n; if (i === 0) { firstShift = -n; }
      return line.slice(n);
    }).join("\n");
    var newStart = Math.max(from, start + firstShift);
    replaceRange(area, from, to, changed, start === end ? newStart : newStart, end + total);
  }

  function newlineKeepingIndent(area) {
    var value = area.value, start = area.selectionStart;
    var from = lineStart(value, start);
    var before = value.slice(from, start);
    var indent = before.match(/^[ \t]*/)[0];
    // After a line ending in ":" (Python), "by" (Lean) or an opening bracket: one level more.
    if (/(:|\bby|\(|\[|\{)\s*$/.test(before)) { indent += INDENT; }
    var text = "\n" + indent;
    replaceRange(area, start, area.selectionEnd, text, start + text.length, start + text.length);
  }

  function enhanceEditor(area) {
    var escaped = false;
    area.setAttribute("wrap", "off");
    area.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { escaped = true; return; }
      if (event.key === "Tab" && !escaped && !event.altKey && !event.ctrlKey && !event.metaKey) {
        event.preventDefault();
        indentLines(area, event.shiftKey);
        return;
      }
      if (event.key === "Enter" && !event.shiftKey && !event.ctrlKey && !event.metaKey && !event.isComposing) {
        event.preventDefault();
        newlineKeepingIndent(area);
      }
      escaped = false;
    });
  }

  function followLanguage(area) {
    var select = document.getElementById(area.dataset.languageSelect || "");
    if (!select) { return; }
    var starters = {};
    try { starters = JSON.parse(area.dataset.starters); } catch (e) { return; }
    function isStarter(text) {
      var norm = text.replace(/\r\n/g, "\n").trim();
      if (!norm) { return true; }
      return Object.keys(starters).some(function (k) { return starters[k].trim() === norm; });
    }
    select.addEventListener("change", function () {
      if (isStarter(area.value) && starters[select.value] !== undefined) {
        area.value = starters[select.value];
      }
    });
  }

  function fillFrom(button) {
    button.addEventListener("click", function () {
      var source = document.getElementById(button.dataset.fillFrom);
      var target = document.getElementById(button.dataset.fillInto);
      if (!source || !target) { return; }
      target.value = source.textContent;
      var select = document.getElementById(button.dataset.select || "");
      if (select && button.dataset.selectValue) { select.value = button.dataset.selectValue; }
      target.focus();
    });
  }

  function chartTips(root) {
    root.querySelectorAll("svg.chart").forEach(function (svg) {
      if (svg.dataset.tipsBound) { return; }
      svg.dataset.tipsBound = "1";
      var tip = svg.parentNode.querySelector(".chart-tip");
      if (!tip) { return; }
      function show(event) {
        var point = event.target.closest ? event.target.closest(".point") : null;
        if (point && point.dataset.tip) { tip.textContent = point.dataset.tip; }
      }
      svg.addEventListener("mouseover", show);
      svg.addEventListener("focusin", show);
      svg.addEventListener("click", show);
    });
  }

  function init(root) {
    root.querySelectorAll("textarea.code").forEach(function (area) {
      if (area.dataset.editorBound) { return; }
      area.dataset.editorBound = "1";
      enhanceEditor(area);
      if (area.dataset.starters) { followLanguage(area); }
    });
    root.querySelectorAll("button[data-fill-from]").forEach(function (button) {
      if (button.dataset.fillBound) { return; }
      button.dataset.fillBound = "1";
      fillFrom(button);
    });
    root.querySelectorAll("button[data-copy-from]").forEach(function (button) {
      if (button.dataset.copyBound) { return; }
      button.dataset.copyBound = "1";
      button.addEventListener("click", function () {
        var source = document.getElementById(button.dataset.copyFrom);
        var status = document.getElementById(button.dataset.copyStatus);
        if (!source) { return; }
        var say = function (text) { if (status) { status.textContent = text; } };
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(source.textContent.trim()).then(
            function () { say("Copied to the clipboard."); },
            function () { say("Could not copy: select the key and copy it by hand."); }
          );
        } else {
          say("Could not copy: select the key and copy it by hand.");
        }
      });
    });
    chartTips(root);
  }

  document.addEventListener("DOMContentLoaded", function () { init(document); });
  // htmx swaps in new book fragments (and their charts) every few seconds.
  document.addEventListener("htmx:after:swap", function () { init(document); });
  document.addEventListener("htmx:afterSwap", function () { init(document); });
})();
