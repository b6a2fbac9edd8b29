// Hopwise pages: small enhancements on top of server-rendered HTML and htmx. Every page works without this
// file; it only makes citations, the question form and file drops nicer. No inline script anywhere (CSP).
(function () {
  "use strict";

  // A citation marker [n] opens its source below the answer and briefly highlights it.
  document.addEventListener("click", function (ev) {
    var a = ev.target.closest && ev.target.closest('a[href^="#cite-"]');
    if (!a) return;
    var li = document.getElementById(decodeURIComponent(a.getAttribute("href").slice(1)));
    if (!li) return;
    ev.preventDefault();
    var details = li.querySelector("details");
    if (details) details.open = true;
    li.classList.add("flash");
    li.scrollIntoView({ block: "nearest", behavior: "smooth" });
    var summary = li.querySelector("summary");
    if (summary) summary.focus({ preventScroll: true });
    setTimeout(function () { li.classList.remove("flash"); }, 2000);
  });

  // After a question is sent, empty the box and show the new turn.
  document.addEventListener("htmx:afterRequest", function (ev) {
    var form = ev.detail.elt;
    if (!ev.detail.successful || !form || form.id !== "ask-form") return;
    var box = form.querySelector("textarea");
    if (box) box.value = "";
  });
  document.addEventListener("htmx:afterSwap", function (ev) {
    if (ev.detail.target && ev.detail.target.id === "turns") {
      var last = ev.detail.target.lastElementChild;
      if (last) last.scrollIntoView({ block: "start", behavior: "smooth" });
    }
  });

  // Enter sends the question; Shift+Enter starts a new line.
  document.addEventListener("keydown", function (ev) {
    if (ev.key !== "Enter" || ev.shiftKey || ev.isComposing) return;
    var box = ev.target;
    if (!box || box.id !== "question") return;
    ev.preventDefault();
    if (box.value.trim() !== "") box.form.requestSubmit();
  });

  // Files dropped on the drop zone go into the file input, as if chosen.
  function setupDropzone() {
    var zone = document.getElementById("dropzone");
    var input = document.getElementById("files");
    var help = document.getElementById("files-help");
    if (!zone || !input || zone.dataset.ready) return;
    zone.dataset.ready = "1";
    var helpText = help ? help.textContent : "";
    function describe() {
      if (!help) return;
      var n = input.files ? input.files.length : 0;
      help.textContent = n > 0 ? n + (n === 1 ? " file" : " files") + " chosen. Press Upload to send." : helpText;
    }
    ["dragenter", "dragover"].forEach(function (name) {
      zone.addEventListener(name, function (ev) { ev.preventDefault(); zone.classList.add("over"); });
    });
    ["dragleave", "drop"].forEach(function (name) {
      zone.addEventListener(name, function () { zone.classList.remove("over"); });
    });
    zone.addEventListener("drop", function (ev) {
      ev.preventDefault();
      if (ev.dataTransfer && ev.dataTransfer.files.length > 0) {
        input.files = ev.dataTransfer.files;
        describe();
      }
    });
    input.addEventListener("change", describe);
    document.addEventListener("htmx:afterRequest", function (ev) {
      if (ev.detail.elt && ev.detail.elt.id === "upload" && ev.detail.successful) {
        ev.detail.elt.reset();
        describe();
      }
    });
  }
  document.addEventListener("DOMContentLoaded", setupDropzone);
})();
