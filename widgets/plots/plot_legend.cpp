// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/plots/plot_legend.h"

#include <qcustomplot.h>

namespace dice {

void placeLegendAbove(QCustomPlot* plot) {
    QCPLayoutGrid* layout = plot->plotLayout();
    // Right above the axes, below a title row if the plot has one.
    int row = 0;
    while (row < layout->rowCount() && layout->element(row, 0) != plot->axisRect())
        ++row;
    if (row == layout->rowCount())
        row = 0;
    // The legend moves from the axes' inset layout to the plot's own grid, above the axes.
    plot->axisRect()->insetLayout()->take(plot->legend);
    layout->insertRow(row);
    layout->addElement(row, 0, plot->legend);
    layout->setRowStretchFactor(row, 0.001);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot->legend->setBorderPen(Qt::NoPen);
    plot->legend->setBrush(Qt::NoBrush);
    plot->legend->setMargins(QMargins(0, 0, 0, 0));
    plot->legend->setVisible(true);
}

} // namespace dice
