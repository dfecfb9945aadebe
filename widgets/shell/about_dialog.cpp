// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/shell/about_dialog.h"

#include "core/common/version.h"
#include "widgets/state/workbench_state.h"

#include <QDialogButtonBox>
#include <QIcon>
#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace dice {

AboutDialog::AboutDialog(const WorkbenchState* state, QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("About DICE Workbench"));
    auto* icon = new QLabel(this);
    icon->setPixmap(QIcon(QStringLiteral(":/icons/dice-workbench.svg")).pixmap(64, 64));
    auto* text = new QLabel(this);
    text->setTextFormat(Qt::RichText);
    text->setWordWrap(true);
    text->setOpenExternalLinks(true);
    text->setText(
        tr("<h3>DICE Workbench %1</h3>"
           "<p>Generate, infill, test and time CUDA kernels with diffusion language models of the "
           "DICE family, and watch the model sculpt each kernel out of masked tokens.</p>"
           "<p>Copyright © 2026 the DICE Workbench developers. This program is free software: "
           "you can redistribute it and/or modify it under the terms of the GNU General Public "
           "License, version 3 or (at your option) any later version.</p>"
           "<p>Built with Qt, QScintilla, QCustomPlot, LibTorch, NVRTC and CUPTI.</p>")
            .arg(QString::fromLatin1(kProductVersion)));
    auto* facts = new QPlainTextEdit(this);
    facts->setReadOnly(true);
    facts->setPlainText(state->systemInfo()
                            ? QString::fromStdString(formatSystemInfo(*state->systemInfo()))
                            : tr("The machine is still being checked."));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(icon, 0, Qt::AlignHCenter);
    layout->addWidget(text);
    layout->addWidget(facts, 1);
    layout->addWidget(buttons);
    resize(560, 460);
}

} // namespace dice
