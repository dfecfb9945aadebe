// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/editor/find_bar.h"

#include "widgets/editor/code_editor.h"

#include <QCheckBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QShortcut>

namespace dice {

FindBar::FindBar(CodeEditor* editor, QWidget* parent)
    : QWidget(parent)
    , m_editor(editor) {
    setObjectName(QStringLiteral("FindBar"));
    m_find = new QLineEdit(this);
    m_replace = new QLineEdit(this);
    m_case = new QCheckBox(this);
    m_regex = new QCheckBox(this);
    m_next = new QPushButton(this);
    m_previous = new QPushButton(this);
    m_replaceOne = new QPushButton(this);
    m_replaceAll = new QPushButton(this);
    m_close = new QPushButton(this);
    m_close->setFlat(true);
    m_result = new QLabel(this);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_find, 2);
    layout->addWidget(m_previous);
    layout->addWidget(m_next);
    layout->addWidget(m_case);
    layout->addWidget(m_regex);
    layout->addWidget(m_replace, 2);
    layout->addWidget(m_replaceOne);
    layout->addWidget(m_replaceAll);
    layout->addWidget(m_result, 1);
    layout->addWidget(m_close);

    connect(m_find, &QLineEdit::returnPressed, this, [this] { findNext(true); });
    connect(m_next, &QPushButton::clicked, this, [this] { findNext(true); });
    connect(m_previous, &QPushButton::clicked, this, [this] { findNext(false); });
    connect(m_replaceOne, &QPushButton::clicked, this, &FindBar::replaceCurrent);
    connect(m_replaceAll, &QPushButton::clicked, this, &FindBar::replaceAll);
    connect(m_close, &QPushButton::clicked, this, [this] {
        hide();
        m_editor->setFocus();
    });
    auto* shortcut = new QShortcut(QKeySequence::Find, m_editor);
    shortcut->setContext(Qt::WidgetWithChildrenShortcut);
    connect(shortcut, &QShortcut::activated, this, &FindBar::open);
    retranslate();
    hide();
}

void FindBar::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void FindBar::retranslate() {
    m_find->setPlaceholderText(tr("Find"));
    m_replace->setPlaceholderText(tr("Replace with"));
    m_case->setText(tr("Match case"));
    m_regex->setText(tr("Regular expression"));
    m_next->setText(tr("Next"));
    m_previous->setText(tr("Previous"));
    m_replaceOne->setText(tr("Replace"));
    m_replaceAll->setText(tr("Replace all"));
    m_close->setText(tr("Close"));
}

void FindBar::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Escape) {
        hide();
        m_editor->setFocus();
        return;
    }
    if ((event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) &&
        (event->modifiers() & Qt::ShiftModifier)) {
        findNext(false);
        return;
    }
    QWidget::keyPressEvent(event);
}

void FindBar::open() {
    show();
    if (m_editor->hasSelectedText() && !m_editor->selectedText().contains(QLatin1Char('\n')))
        m_find->setText(m_editor->selectedText());
    m_find->setFocus();
    m_find->selectAll();
}

bool FindBar::findNext(bool forward) {
    const QString text = m_find->text();
    if (text.isEmpty())
        return false;
    int line = 0;
    int index = 0;
    if (forward) {
        m_editor->getCursorPosition(&line, &index);
    } else {
        // Searching backwards starts before the current match, not inside it.
        int lineTo = 0;
        int indexTo = 0;
        if (m_editor->hasSelectedText())
            m_editor->getSelection(&line, &index, &lineTo, &indexTo);
        else
            m_editor->getCursorPosition(&line, &index);
    }
    const bool found = m_editor->findFirst(text, m_regex->isChecked(), m_case->isChecked(), false,
                                           true, forward, line, index, true);
    m_result->setText(found ? QString() : tr("Not found"));
    return found;
}

bool FindBar::replaceCurrent() {
    // QScintilla replaces the match of the last search; without one there is nothing to replace.
    if (!m_editor->hasSelectedText() && !findNext(true))
        return false;
    m_editor->replace(m_replace->text());
    findNext(true);
    return true;
}

int FindBar::replaceAll() {
    const QString text = m_find->text();
    if (text.isEmpty())
        return 0;
    int count = 0;
    m_editor->beginUndoAction();
    if (m_editor->findFirst(text, m_regex->isChecked(), m_case->isChecked(), false, false, true, 0,
                            0, false)) {
        do {
            m_editor->replace(m_replace->text());
            ++count;
        } while (m_editor->findNext());
    }
    m_editor->endUndoAction();
    m_result->setText(tr("%n replaced", nullptr, count));
    return count;
}

void FindBar::setFindText(const QString& text) {
    m_find->setText(text);
}

void FindBar::setReplaceText(const QString& text) {
    m_replace->setText(text);
}

void FindBar::setCaseSensitive(bool on) {
    m_case->setChecked(on);
}

} // namespace dice
