// Draw the plotly figures whose JSON the page embeds (#chart-data), locally served plotly.js.
(function () {
  const data = JSON.parse(document.getElementById("chart-data").textContent);
  const config = { responsive: true, displaylogo: false, scrollZoom: true };
  for (const [key, fig] of Object.entries(data)) {
    const el = document.getElementById("chart-" + key);
    if (!el || !fig) continue;
    // autosize measures the container on every relayout (a selector's view switch): give it the figure's
    // height, or it measures the empty box (its CSS min-height) and squashes every panel into it
    if (fig.layout && fig.layout.height) el.style.height = fig.layout.height + "px";
    Plotly.newPlot(el, fig.data, fig.layout, config);
  }
})();
