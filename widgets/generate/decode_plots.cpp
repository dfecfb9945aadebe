// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/generate/decode_plots.h"

#include "core/diffusion/decode_trace.h"
#include "widgets/plots/plot_legend.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QTabWidget>
#include <QVBoxLayout>

namespace dice {

namespace {

const QColor kDiffusionColor(0x21, 0x90, 0x8d);
const QColor kAutoregressiveColor(0xc0, 0x50, 0x30);

void fill(QCPGraph* graph, const DecodeTrace* trace, int which) {
    QVector<double> keys, values;
    if (trace) {
        for (const auto& f : trace->figures()) {
            if (which == 2) {
                // Denoising passes, as the figures line counts them (the cache's passes can
                // share the next block's first pass).
                keys << static_cast<double>(f.tokensSoFar);
                values << static_cast<double>(f.globalStep);
            } else {
                keys << f.globalStep;
                values << (which == 0 ? f.committed : f.meanConfidence);
            }
        }
    }
    graph->setData(keys, values, true);
}

} // namespace

DecodePlots::DecodePlots(QWidget* parent)
    : QWidget(parent)
    , m_tabs(new QTabWidget(this))
    , m_committed(new QCustomPlot(this))
    , m_confidence(new QCustomPlot(this))
    , m_passes(new QCustomPlot(this)) {
    for (QCustomPlot* plot : {m_committed, m_confidence, m_passes}) {
        setupPlot(plot);
        m_tabs->addTab(plot, QString());
    }
    m_committed->graph(0)->setLineStyle(QCPGraph::lsStepCenter);
    m_committed->graph(1)->setLineStyle(QCPGraph::lsStepCenter);
    m_confidence->yAxis->setRange(0, 1.05);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tabs);
    retranslate();
}

void DecodePlots::setupPlot(QCustomPlot* plot) {
    plot->setMinimumHeight(160);
    for (const QColor& color : {kDiffusionColor, kAutoregressiveColor}) {
        QCPGraph* graph = plot->addGraph();
        graph->setPen(QPen(color, 1.6));
    }
    auto* cursor = new QCPItemStraightLine(plot);
    cursor->setPen(QPen(QColor(0xe0, 0x40, 0x20), 1, Qt::DashLine));
    cursor->point1->setCoords(0, 0);
    cursor->point2->setCoords(0, 1);
    placeLegendAbove(plot);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
}

void DecodePlots::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void DecodePlots::retranslate() {
    m_tabs->setTabText(0, tr("Committed per step"));
    m_tabs->setTabText(1, tr("Confidence"));
    m_tabs->setTabText(2, tr("Denoising passes"));
    for (QCustomPlot* plot : {m_committed, m_confidence, m_passes}) {
        plot->graph(0)->setName(tr("Diffusion"));
        plot->graph(1)->setName(tr("Autoregressive"));
    }
    m_committed->xAxis->setLabel(tr("Step"));
    m_committed->yAxis->setLabel(tr("Tokens committed"));
    m_confidence->xAxis->setLabel(tr("Step"));
    m_confidence->yAxis->setLabel(tr("Mean confidence"));
    m_passes->xAxis->setLabel(tr("Tokens produced"));
    m_passes->yAxis->setLabel(tr("Denoising passes"));
    for (QCustomPlot* plot : {m_committed, m_confidence, m_passes})
        plot->replot(QCustomPlot::rpQueuedReplot);
}

void DecodePlots::setTraces(const DecodeTrace* diffusion, const DecodeTrace* autoregressive) {
    m_diffusion = diffusion;
    m_autoregressive = autoregressive;
    refresh();
}

void DecodePlots::refresh() {
    QCustomPlot* plots[] = {m_committed, m_confidence, m_passes};
    for (int which = 0; which < 3; ++which) {
        QCustomPlot* plot = plots[which];
        fill(plot->graph(0), m_diffusion, which);
        fill(plot->graph(1), m_autoregressive, which);
        plot->graph(1)->setVisible(m_autoregressive != nullptr);
        plot->graph(1)->removeFromLegend();
        if (m_autoregressive)
            plot->graph(1)->addToLegend();
        bool found = false;
        const QCPRange keys = plot->graph(0)->getKeyRange(found);
        bool foundAr = false;
        const QCPRange keysAr = plot->graph(1)->getKeyRange(foundAr);
        double upper = found ? keys.upper : 1;
        if (foundAr && m_autoregressive)
            upper = std::max(upper, keysAr.upper);
        plot->xAxis->setRange(0, std::max(1.0, upper));
        if (which != 1) {
            bool valuesFound = false;
            double top = plot->graph(0)->getValueRange(valuesFound).upper;
            bool arFound = false;
            const double arTop = plot->graph(1)->getValueRange(arFound).upper;
            if (arFound && m_autoregressive)
                top = std::max(top, arTop);
            plot->yAxis->setRange(0, std::max(1.0, top * 1.1));
        }
    }
    setCursorStep(m_cursor);
}

void DecodePlots::setCursorStep(int step) {
    m_cursor = step;
    for (QCustomPlot* plot : {m_committed, m_confidence}) {
        auto* line = qobject_cast<QCPItemStraightLine*>(plot->item(0));
        if (line) {
            line->point1->setCoords(step, 0);
            line->point2->setCoords(step, 1);
        }
        plot->replot(QCustomPlot::rpQueuedReplot);
    }
    m_passes->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace dice
