// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace dice {

class CodeEditor;

// Find and replace for one editor: Ctrl+F opens it, Enter finds the next match, Shift+Enter the
// previous, Escape closes it; replace one match or all of them in one undo step.
class FindBar : public QWidget {
    Q_OBJECT
public:
    explicit FindBar(CodeEditor* editor, QWidget* parent = nullptr);

    void open();
    bool findNext(bool forward = true);
    bool replaceCurrent();
    int replaceAll();
    void setFindText(const QString& text);
    void setReplaceText(const QString& text);
    void setCaseSensitive(bool on);

protected:
    void changeEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void retranslate();

    CodeEditor* m_editor;
    QLineEdit* m_find;
    QLineEdit* m_replace;
    QCheckBox* m_case;
    QCheckBox* m_regex;
    QPushButton* m_next;
    QPushButton* m_previous;
    QPushButton* m_replaceOne;
    QPushButton* m_replaceAll;
    QPushButton* m_close;
    QLabel* m_result;
};

} // namespace dice
