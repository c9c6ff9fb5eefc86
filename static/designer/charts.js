// Draw the plotly figures whose JSON the page embeds (#chart-data), locally served plotly.js.
(function () {
  const data = JSON.parse(document.getElementById("chart-data").textContent);
  const config = { responsive: true, displaylogo: false, scrollZoom: true };
  for (const [key, fig] of Object.entries(data)) {
    const el = document.getElementById("chart-" + key);
    if (!el || !fig) continue;
    Plotly.newPlot(el, fig.data, fig.layout, config);
  }
})();
